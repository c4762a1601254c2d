// The page and the waited extract both extract benches send (bench:extract, bench/extract-trace.ts), so the
// trace's timeline is of the extract the bench measures.
import { html } from '../test/support/fixture-site.js';
import type { TestService } from '../test/support/service.js';

/** Where the fixture site serves ITEM_PAGE. */
export const ITEM_PATH = '/p';
export const ITEM_PAGE = html(
  'Item',
  `<h1>Item</h1><p>Price: 10</p><p>${'Some text about the item. '.repeat(40)}</p>`,
);

/** POST /extract of the item page on the fixture site at `siteUrl`, waited for. */
export const extractItem = (svc: TestService, siteUrl: string) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${siteUrl}${ITEM_PATH}`, schema: { title: 'string', price: 'number' } },
  });
