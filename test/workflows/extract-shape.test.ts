// How many round trips through Temporal a waited extract takes, read from its workflow history: one workflow
// task, in which a local activity (extractPage) runs the page and records the job's events itself, and the
// workflow ends. Not timed: a change that adds a task or an activity to every extract fails here, whatever the machine.
// The real workflows with the pipeline's activities over a page table (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fakeActivities } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { historyShape } from '../support/history-shape.js';
import { startTestService, type TestService } from '../support/service.js';

const SITE = 'https://shop.test';
let svc: TestService;

before(async () => {
  const page = html('Item', `<h1>Item</h1><p>Price: 10</p><p>${'Text about the item. '.repeat(30)}</p>`);
  svc = await startTestService({ activities: fakeActivities({ pages: { [`${SITE}/p`]: page } }) });
});

after(async () => {
  await svc?.close();
});

test('a waited extract is one workflow task with one local activity, and its log is complete', async () => {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${SITE}/p`, schema: { title: 'string', price: 'number' } },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().data, { title: 'Item', price: 10 });
  const jobId = res.json().job_id as string;
  const { history, events, workflowTasks, activities, localActivities } = await historyShape(
    svc,
    `extract-${jobId}`,
  );
  assert.equal(workflowTasks, 1, 'workflow tasks');
  assert.deepEqual(activities, []);
  assert.deepEqual(localActivities, ['extractPage']);
  // The task is open while the page runs: its timeout bounds how late a cancel reaches the page.
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  assert.equal(Number(started?.workflowTaskTimeout?.seconds), 3, 'the extract workflow task timeout');
  assert.ok(events.some((e) => e.workflowExecutionCompletedEventAttributes));
  assert.ok(!JSON.stringify(history).includes('Text about the item'), 'no page content in history');

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
