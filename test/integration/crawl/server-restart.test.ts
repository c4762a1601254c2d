// A crawl survives a restart of the Temporal server itself (same data file): the worker reconnects and the
// finished crawl has every page exactly once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Infra, startInfra } from '../../../scripts/lib/stack.js';
import { startShopCrawlUnderway, waitForJobEnd } from '../../support/crawl-jobs.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

let infra: Infra;
let svc: TestService;
let site: ShopSite;

before(async () => {
  infra = await startInfra();
  svc = await startTestService({ infra });
  site = await startShopSite({ productDelayMs: 500 });
});
after(async () => {
  await site?.close();
  await svc?.close();
  await infra?.stop();
});

test('restarting the Temporal dev server mid-crawl loses and repeats nothing', {
  timeout: 240_000,
}, async () => {
  const jobId = await startShopCrawlUnderway(svc, site);
  await infra.restartTemporal();

  const job = await waitForJobEnd(svc, jobId, 120_000);
  assert.equal(job.status, 'completed');
  const results = (
    await svc.app.inject({ url: `/api/v1/jobs/${jobId}/results`, headers: svc.auth() })
  ).json() as {
    url: string;
  }[];
  const urls = results.map((r) => r.url);
  assert.equal(urls.length, 12, urls.join(' '));
  assert.equal(new Set(urls).size, 12, 'every page once');
});
