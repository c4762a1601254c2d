// A crawl cancelled at any moment ends cancelled with a gap-free event log: while it records its start,
// while its first pages are queued, or while pages are at the site.
// Jobs run on the real workflows with fake activities over the shop's page table (test/support/shop-table.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cancelAndWait } from '../support/crawl-jobs.js';
import { fakeActivities, type PageTable } from '../support/fake-activities.js';
import { startTestService, type TestService } from '../support/service.js';
import { shopTable } from '../support/shop-table.js';

let svc: TestService;
const site: PageTable = shopTable({ productDelayMs: 500 });
before(async () => {
  svc = await startTestService({
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
    activities: fakeActivities({ pages: site.pages }),
  });
});
after(async () => {
  await svc?.close();
});

for (const delayMs of [0, 0, 25, 50, 100, 200, 400, 800]) {
  test(`a crawl cancelled ${delayMs} ms after it was accepted ends cancelled`, {
    timeout: 60_000,
  }, async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/`,
        schema: { name: 'string', price: 'number' },
        options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1, concurrency: 2 },
      },
    });
    assert.equal(res.statusCode, 202, res.body);
    const jobId = res.json().job_id as string;
    await new Promise((r) => setTimeout(r, delayMs));
    const job = await cancelAndWait(svc, jobId);
    assert.equal(job.status, 'cancelled');
    const events = await svc.deps.events.list(jobId, -1, 10_000);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
      'every seq written once, none missing',
    );
    assert.equal(events.at(-1)?.type, 'job.cancelled');
  });
}
