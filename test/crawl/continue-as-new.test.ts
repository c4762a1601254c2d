// A long crawl continues as new (bounded history) and still processes every page exactly once, its log
// gap-free across runs. The job runs on the real workflows with fake activities over the shop's page table
// (test/support/shop-table.ts); the trap of endless links and the redirect loop, which need real fetches,
// are tested in test/integration/crawl/crawl.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startContinueAsNewCrawl } from '../support/crawl-jobs.js';
import { fakeActivities, type PageTable } from '../support/fake-activities.js';
import { startTestService, type TestService } from '../support/service.js';
import { shopTable } from '../support/shop-table.js';

let svc: TestService;
const site: PageTable = shopTable();

before(async () => {
  svc = await startTestService({ activities: fakeActivities({ pages: site.pages }) });
});
after(async () => {
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
