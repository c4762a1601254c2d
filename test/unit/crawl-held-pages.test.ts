// A crawl batch holds its fetched pages to store them together, but never more than HELD_PAGE_BYTES of
// them: a page past the bound is stored as it is fetched, so a batch of large pages holds one page's worth.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HELD_PAGE_BYTES, type HeldWrites, holdPage } from '../../activities/crawl/crawl-types.js';
import { HeldAnswers } from '../../shared/store/learned-extractors.js';
import type { NewPage } from '../../shared/store/pages.js';

const page = (pageId: string, bytes: number): NewPage => ({
  tenantId: 't',
  jobId: 'j',
  pageId,
  url: `http://127.0.0.1/${pageId}`,
  finalUrl: `http://127.0.0.1/${pageId}`,
  status: 200,
  headers: {},
  contentType: 'text/html',
  fetchMode: 'static',
  body: 'x'.repeat(bytes),
  bytes,
  fetchedAt: new Date(0).toISOString(),
});

test('a batch holds small pages and refuses the one that would pass the byte bound', () => {
  const held: HeldWrites = { pages: [], answers: new HeldAnswers(), events: [] };
  const third = Math.floor(HELD_PAGE_BYTES / 3);
  assert.equal(holdPage(held, page('a', third)), true);
  assert.equal(holdPage(held, page('b', third)), true);
  assert.equal(holdPage(held, page('c', third + 10)), false, 'past the bound: stored at once');
  assert.equal(holdPage(held, page('d', 100)), true, 'a small one still fits');
  assert.deepEqual(
    held.pages.map((p) => p.pageId),
    ['a', 'b', 'd'],
  );
  assert.equal(
    held.pages.reduce((sum, p) => sum + p.bytes, 0),
    2 * third + 100,
  );
  // Once the batch has stored what it held, it holds a full bound's worth again.
  held.pages.splice(0);
  assert.equal(holdPage(held, page('e', third + 10)), true);
});

test('a page larger than the bound is held when the batch holds nothing else', () => {
  const held: HeldWrites = { pages: [], answers: new HeldAnswers(), events: [] };
  assert.equal(holdPage(held, page('big', HELD_PAGE_BYTES + 1)), true);
  assert.equal(holdPage(held, page('next', 1)), false);
});
