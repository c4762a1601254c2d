// A page with thousands of long links cannot wedge a crawl: the page yields at most MAX_LINKS_PER_PAGE links
// (MAX_LINK_CHARS_PER_PAGE of URLs), so the crawl activity's result stays far under Temporal's 2 MB payload
// limit. Before, all 12,000 links (2.9 MB) came back in the result, which Temporal refused, and the page was
// retried until the crawl's time ran out.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_LINK_CHARS_PER_PAGE, MAX_LINKS_PER_PAGE } from '../../../shared/crawl/links.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const LINKS = 12_000;
/** ~240 characters each: 12,000 of them are 2.9 MB, 500 of them 125 KB. */
const linkPath = (i: number) => `/l/${String(i).padStart(5, '0')}/${'x'.repeat(225)}`;

let svc: TestService;
let site: FixtureSite;

before(async () => {
  // The page's 2.9 MB of links take seconds of HTML work; on a machine loaded by other test files that can
  // pass the default 15 s limit. The limit is not what this file tests (security/html-limits does).
  svc = await startTestService({ env: { HTML_TIMEOUT_MS: '60000' } });
  site = await startFixtureSite();
  const links = Array.from({ length: LINKS }, (_, i) => `<a href="${linkPath(i)}">${i}</a>`);
  site.route('/', html('Many links', `<h1>Many links</h1>${links.join('\n')}`));
  // The linked pages are skipped (robots.txt) without being fetched: the test is about queuing, not fetching.
  site.route('/robots.txt', (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /l/\n'),
  );
});
after(async () => {
  await site?.close();
  await svc?.close();
});

test('a page of 12,000 long links: the crawl completes, at most the bound of links is queued', {
  timeout: 180_000,
}, async () => {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl',
    headers: svc.auth(),
    payload: {
      url: `${site.url}/`,
      schema: { title: 'string' },
      options: { follow_selector: 'a', max_depth: 1, max_pages: 10_000, concurrency: 20 },
    },
  });
  assert.equal(res.statusCode, 202, res.body);
  const jobId = res.json().job_id as string;
  const job = await waitForJobEnd(svc, jobId, 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));

  const map = (
    await svc.app.inject({ url: `/api/v1/jobs/${jobId}/crawl-map`, headers: svc.auth() })
  ).json() as { total: number; completed: number; entries: { url: string; status: string; depth: number }[] };
  const links = map.entries.filter((e) => e.depth === 1);
  // Every link is distinct and short enough: the count bound is the one that bites.
  assert.equal(links.length, MAX_LINKS_PER_PAGE);
  assert.equal(map.total, 1 + MAX_LINKS_PER_PAGE);
  const chars = links.reduce((n, e) => n + e.url.length, 0);
  assert.ok(chars <= MAX_LINK_CHARS_PER_PAGE, `${chars} characters of URLs`);
  // The first links of the page are the ones kept, each once.
  assert.equal(new Set(links.map((e) => e.url)).size, links.length);
  assert.ok(links.some((e) => e.url === `${site.url}${linkPath(0)}`));
  assert.ok(links.every((e) => e.status === 'skipped'));
  assert.ok(!site.hits.some((h) => h.startsWith('/l/')), 'no linked page was fetched');
});
