// The bench preload (bench/preload.ts): copies of a finished job, written through the stores, read back
// through the API's readers as finished jobs of the tenant, each with its own number and page contents.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { preloadJobs } from '../../bench/preload.js';
import type { JobEvent } from '../../shared/events.js';
import { createStores } from '../../shared/store/index.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => {
  await svc?.close();
});

test('preloaded jobs are finished jobs of the tenant, each with its own id, number, times and contents', async () => {
  const stores = createStores(svc.mongo.db, svc.config);
  const templateId = `job_${randomUUID().replaceAll('-', '')}`;
  const log = jobLog(templateId, 'ten_template');
  const template: JobEvent[] = [
    log.created('extract', 'https://example.com/p'),
    log.started(),
    log.completed('https://example.com/p', { title: 'Item' }),
    { ...log.started(), type: 'job.completed', data: { duration_ms: 10 } } as JobEvent,
  ];
  const now = new Date();
  const ids = await preloadJobs(stores, {
    tenantId: svc.tenantId,
    jobs: 5,
    template,
    pageBytes: 2000,
    parallel: 3,
    spreadDays: 2,
    now,
  });

  assert.equal(new Set(ids).size, 5);
  assert.ok(!ids.includes(templateId));
  const listed = await stores.jobs.list(svc.tenantId, 10, 0);
  assert.deepEqual(listed.map((j) => j.tenant_seq).sort(), [1, 2, 3, 4, 5]);
  for (const job of listed) {
    assert.equal(job.status, 'completed');
    assert.equal(job.page_count, 1);
    assert.equal(job.workflow_id, `extract-${job.id}`);
    assert.ok(Date.parse(job.created_at) <= now.getTime());
    assert.ok(Date.parse(job.created_at) > now.getTime() - 2 * 86_400_000);
    assert.deepEqual(
      (await stores.jobs.results(job)).map((r) => r.data),
      [{ title: 'Item' }],
    );
  }
  // Each job's raw and cleaned page are stored: the sweep of everything up to tomorrow finds ten.
  const swept = await stores.contents.sweepExpired(new Date(now.getTime() + 86_400_000));
  assert.deepEqual(swept, { deleted: 10, done: true });
});
