// How many round trips through Temporal an analysis takes, read from its workflow history: two workflow tasks
// (start, then the job's answer) and one activity (analyzeJob), which records the job's events itself, also at
// depth 1 (linked pages classified). Not timed: a change that adds a task or an activity fails here.
// The real workflows with fake activities (test/support/fake-activities.ts), the real analyzeJob among them on
// engines in this thread (its HTML tasks here, no browser), fetching the analyze site and asking the fake model
// server.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAnalyzeSite } from '../support/analyze-site.js';
import { fakeActivities } from '../support/fake-activities.js';
import type { FixtureSite } from '../support/fixture-site.js';
import { historyShape } from '../support/history-shape.js';
import { startTestService, type TestService } from '../support/service.js';
import { startReceiver } from '../webhooks/receiver.js';

let svc: TestService;
let site: FixtureSite;

before(async () => {
  svc = await startTestService({ activities: fakeActivities({ pages: {}, analyze: true }) });
  site = await startAnalyzeSite();
});

after(async () => {
  await site?.close();
  await svc?.close();
});

async function analyze(apiKey?: string) {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/analyze',
    headers: svc.auth(apiKey),
    payload: { url: `${site.url}/products`, depth: 1, fetch_mode: 'static' },
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.page_type, 'listing');
  const jobId = body.job_id as string;
  const { events, workflowTasks, activities } = await historyShape(svc, `analyze-${jobId}`);
  return { jobId, workflowTasks, activities, events };
}

test('an analysis at depth 1 is two workflow tasks and one activity, and its log is complete', async () => {
  const { jobId, workflowTasks, activities, events } = await analyze();
  assert.equal(workflowTasks, 2, 'workflow tasks');
  assert.deepEqual(activities, ['analyzeJob']);
  assert.ok(events.some((e) => e.workflowExecutionCompletedEventAttributes));

  const log = await svc.deps.events.list(jobId);
  assert.deepEqual(
    log.map((e) => `${e.seq}:${e.type}`),
    ['0:job.created', '1:job.started', '2:page.completed', '3:job.completed'],
  );
  const job = await svc.deps.jobs.get(svc.tenantId, jobId);
  assert.equal(job?.status, 'completed');
  assert.equal(job?.page_count, 1);
  assert.ok(job?.started_at, 'job.started is projected');
});

test('with a webhook the workflow records the start and the end, each sent after its event', async () => {
  const rx = await startReceiver();
  try {
    const tenant = await svc.newTenant('analyze-shape-hooks');
    const saved = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: svc.auth(tenant.apiKey),
      payload: {
        name: 'all',
        url: `${rx.url}/all`,
        events: ['job.started', 'job.completed'],
        is_active: true,
      },
    });
    assert.equal(saved.statusCode, 201, saved.body);
    const { jobId, activities } = await analyze(tenant.apiKey);
    assert.deepEqual(activities, ['recordEvents', 'analyzeJob', 'recordEvents']);
    const got = await rx.waitFor('/all', 2, 60_000);
    assert.deepEqual(got.map((r) => JSON.parse(r.body).event).sort(), ['job.completed', 'job.started']);
    const log = await svc.deps.events.list(jobId);
    assert.deepEqual(
      log.map((e) => `${e.seq}:${e.type}`),
      ['0:job.created', '1:job.started', '2:page.completed', '3:job.completed'],
    );
  } finally {
    await rx.close();
  }
});
