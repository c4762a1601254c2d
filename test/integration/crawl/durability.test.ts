// A crawl survives its worker being killed (SIGKILL) mid-crawl: a new worker finishes it, and every page
// ends up in the results exactly once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startShopCrawlUnderway, waitForJobEnd } from '../../support/crawl-jobs.js';
import { spawnWorkerProcess, startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

let svc: TestService;
let site: ShopSite;

before(async () => {
  svc = await startTestService({ worker: false });
  site = await startShopSite({ productDelayMs: 700 });
});
after(async () => {
  await site?.close();
  await svc?.close();
});

test('killing the worker mid-crawl loses no page and extracts none twice', { timeout: 240_000 }, async () => {
  const first = spawnWorkerProcess(svc.config);
  // Kill it while product pages are being fetched.
  const jobId = await startShopCrawlUnderway(svc, site);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));

  const second = spawnWorkerProcess(svc.config);
  try {
    const job = await waitForJobEnd(svc, jobId, 180_000);
    assert.equal(job.status, 'completed');
    const read = await svc.app.inject({ url: `/api/v1/jobs/${jobId}/results`, headers: svc.auth() });
    assert.equal(read.statusCode, 200, read.body);
    const results = read.json() as { url: string; status: string }[];
    const urls = results.map((r) => r.url);
    assert.equal(new Set(urls).size, urls.length, 'every page once in the results');
    const products = results.filter((r) => r.url.includes('/product/'));
    assert.equal(products.length, 10, urls.join(' '));
    assert.equal(products.filter((r) => r.status === 'completed').length, 8);
    const events = await svc.deps.events.list(jobId, -1, 10_000);
    const pageEvents = events.filter(
      (e) => e.type === 'page.completed' || e.type === 'page.failed' || e.type === 'page.skipped',
    );
    const pageUrls = pageEvents.map((e) => (e.data as { url: string }).url);
    assert.equal(new Set(pageUrls).size, pageUrls.length, 'one result event per page');
  } finally {
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }
});
