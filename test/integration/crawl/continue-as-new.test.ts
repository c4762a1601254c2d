// A long crawl continues as new (bounded history) and still processes every page exactly once; a trap of
// endless links and a redirect loop cannot keep a crawl from ending.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startContinueAsNewCrawl } from '../../support/crawl-jobs.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

let svc: TestService;
let site: ShopSite;

before(async () => {
  svc = await startTestService();
  site = await startShopSite();
});
after(async () => {
  await site?.close();
  await svc?.close();
});

test('a crawl whose history fills up continues as new and processes every page once', {
  timeout: 180_000,
}, async () => {
  const { jobId, handle } = await startContinueAsNewCrawl(svc, site, 40);
  const result = (await handle.result()) as {
    runs: number;
    completed: number;
    failed: number;
    skipped: number;
  };
  assert.ok(result.runs >= 2, `continued as new (${result.runs} runs)`);
  assert.equal(result.completed + result.failed + result.skipped, 12);
  const job = await svc.deps.jobs.get(svc.tenantId, jobId);
  assert.equal(job?.status, 'completed');
  const results = await svc.deps.jobs.results(job!);
  const urls = results.map((r) => r.url);
  assert.equal(urls.length, 12);
  assert.equal(new Set(urls).size, 12, 'each page once');
  // The log stayed gap-free across runs: every seq from 0 to the last is present.
  const events = await svc.deps.events.list(jobId, -1, 10_000);
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i),
  );
  assert.equal(events.at(-1)?.type, 'job.completed');
});

test('a trap of endless links and a redirect loop end within the limits', { timeout: 120_000 }, async () => {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl?wait=true&timeout=100',
    headers: svc.auth(),
    payload: {
      url: `${site.url}/product/2`,
      schema: { name: 'string' },
      options: { follow_pattern: '/(trap|loop)', max_depth: 10, max_pages: 12, concurrency: 4 },
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.status, 'completed');
  assert.ok(body.data.length <= 12);
  const loop = body.data.find((r: { url: string }) => r.url.endsWith('/loop'));
  assert.equal(loop?.status, 'failed');
  assert.equal(loop?.error_category, 'fetch_error');
  const map = (
    await svc.app.inject({ url: `/api/v1/jobs/${body.job_id}/crawl-map`, headers: svc.auth() })
  ).json();
  assert.ok(
    map.entries.some(
      (e: { status: string; error_details: string }) =>
        e.status === 'skipped' && e.error_details === 'max_pages',
    ),
  );
});
