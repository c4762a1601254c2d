// One tenant's large crawls cannot take the whole worker: they hold at most TENANT_MAX_SHARE of its
// activity slots, and another tenant's extract is served while they run.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { html } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const SLOTS = 4;
const SHARE = 0.5;
const PAGE_DELAY_MS = 400;
/** Pages of each of the three crawls: 36 slow pages through 2 slots, seconds of deferrals. */
const PAGES = 12;

let svc: TestService;
let server: Server;
let base: string;
/** Slow pages being served now (A's crawls), and the most at once. */
const slow = { now: 0, max: 0 };

before(async () => {
  // An endless tree of slow pages (/tree/N links to three children) and one fast page.
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/fast') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(html('Fast', '<h1>Fast page</h1><p>Ready.</p>'));
      return;
    }
    const match = /^\/tree\/([a-z]+)\/(\d+)$/.exec(path);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const [, crawl, n] = match;
    slow.now++;
    slow.max = Math.max(slow.max, slow.now);
    setTimeout(() => {
      slow.now--;
      const links = [1, 2, 3].map((i) => `<a href="/tree/${crawl}/${Number(n) * 3 + i}">child ${i}</a>`);
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(html(`Node ${n}`, `<h1>Node ${n}</h1>${links.join(' ')}`));
    }, PAGE_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  svc = await startTestService({
    env: {
      WORKER_MAX_ACTIVITIES: String(SLOTS),
      TENANT_MAX_SHARE: String(SHARE),
      RATE_LIMIT_PER_MINUTE: '1000',
      HTML_WORKERS: '2', // production's: another tenant's page is read beside the crawls'
    },
  });
});
after(async () => {
  await svc?.close();
  await new Promise((resolve) => server?.close(resolve));
});

test('a tenant running several large crawls holds at most its share; another tenant extracts meanwhile', {
  timeout: 180_000,
}, async () => {
  const crawls: string[] = [];
  for (const name of ['a', 'b', 'c']) {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl',
      headers: svc.auth(),
      payload: {
        url: `${base}/tree/${name}/0`,
        schema: { title: 'string' },
        options: {
          follow_selector: 'a',
          max_pages: PAGES,
          max_depth: 5,
          concurrency: 6,
          respect_robots: false,
        },
      },
    });
    assert.equal(res.statusCode, 202, res.body);
    crawls.push(res.json().job_id);
  }
  // Let the crawls fill the worker.
  for (let i = 0; i < 100 && slow.max < SLOTS * SHARE; i++) await new Promise((r) => setTimeout(r, 100));

  const other = await svc.newTenant('other');
  const started = Date.now();
  const extract = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(other.apiKey),
    payload: { url: `${base}/fast`, schema: { title: 'string' } },
  });
  const extractMs = Date.now() - started;
  assert.equal(extract.statusCode, 200, extract.body);
  const running = await Promise.all(
    crawls.map(async (id) =>
      (await svc.app.inject({ url: `/api/v1/jobs/${id}`, headers: svc.auth() })).json(),
    ),
  );
  assert.ok(
    running.some((job) => job.status === 'running' || job.status === 'pending'),
    'the crawls were still running when the other tenant was served',
  );

  for (const id of crawls) {
    const job = await waitForJobEnd(svc, id, 150_000);
    assert.equal(job.status, 'completed');
    assert.equal(job.page_count, PAGES, `crawl ${id}: every page was crawled despite deferrals`);
  }
  assert.ok(
    slow.max <= Math.floor(SLOTS * SHARE),
    `the crawling tenant held ${slow.max} of ${SLOTS} slots at once (share ${SHARE})`,
  );
  // Without the share the extract's activities queue behind ~15 slow pages per slot turn; with it they
  // find a free slot at once. A generous bound: an extract alone takes well under a second here.
  assert.ok(extractMs < 8_000, `the other tenant's extract took ${extractMs} ms`);
});
