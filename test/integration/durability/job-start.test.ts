// No job stranded `pending` without a workflow: the API stopping between job.created
// and the workflow start, and Temporal out of reach at the start, against the real stack.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { buildApp } from '../../../api/app.js';
import { pendingStarts, startJob } from '../../../api/job-runner.js';
import { sweepStrandedJobs } from '../../../api/job-sweeper.js';
import { defaultChainFor } from '../../../shared/cleaners.js';
import { normalizeSchema } from '../../../shared/schema-input.js';
import { workflowIdForJob } from '../../../shared/temporal-names.js';
import type { ExtractWorkflowInput } from '../../../workflows/extract-page.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;
let site: FixtureSite;
const FIELDS = { name: 'string', price: 'number' };

before(async () => {
  // The app's own sweeper stays out of the way: the tests sweep when they mean to.
  svc = await startTestService({ env: { JOB_SWEEP_INTERVAL_MS: '3600000', JOB_START_GRACE_MS: '30000' } });
  site = await startFixtureSite();
  site.route('/kettle', html('Kettle', '<main><h1>Blue Kettle</h1><p>Price: 24.5</p></main>'));
});
after(async () => {
  await site?.close();
  await svc?.close();
});

const extract = (app: TestService['app'], key?: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: { ...svc.auth(), ...(key ? { 'idempotency-key': key } : {}) },
    payload: { url: `${site.url}/kettle`, schema: FIELDS },
  });

/** Records an extract job as the route does, but the API "dies" in beforeStart: no workflow is started. */
async function recordWithoutStart(key: string | null, llm?: ExtractWorkflowInput['llm']) {
  const schema = normalizeSchema(FIELDS);
  let jobId = '';
  await assert.rejects(
    startJob(svc.deps, {
      tenantId: svc.tenantId,
      idempotencyKey: key,
      beforeStart: async (id) => {
        jobId = id;
        throw new Error('the API process died here');
      },
      spec: {
        kind: 'extract',
        url: `${site.url}/kettle`,
        fetchMode: 'static',
        cleanerChain: defaultChainFor(schema),
        schema,
        captureDebug: false,
        ...(llm ? { llm } : {}),
      },
    }),
    /died here/,
  );
  return jobId;
}

const describeWorkflow = (jobId: string) =>
  svc.deps.temporal.workflow.getHandle(workflowIdForJob('extract', jobId)).describe();

async function finalStatus(jobId: string) {
  await svc.deps.temporal.workflow
    .getHandle(workflowIdForJob('extract', jobId))
    .result()
    .catch(() => undefined);
  return svc.deps.jobs.get(svc.tenantId, jobId);
}

describe('a job recorded without its workflow', () => {
  test('the API dying between record and start: a retry with the same Idempotency-Key starts it', async () => {
    const jobId = await recordWithoutStart('died-before-start');
    assert.equal((await svc.deps.jobs.get(svc.tenantId, jobId))?.status, 'pending');
    await assert.rejects(describeWorkflow(jobId), WorkflowNotFoundError);

    const res = await extract(svc.app, 'died-before-start');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().job_id, jobId);
    assert.deepEqual(res.json().data, { name: 'Blue Kettle', price: 24.5 });
    assert.equal(await pendingStarts(svc.deps).get(jobId), null, 'the start marker is gone');
    // Asked again: the same job, still one workflow.
    const again = await extract(svc.app, 'died-before-start');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().job_id, jobId);
  });

  test('the sweeper starts a keyless stranded job from its stored request, once past the grace period', async () => {
    const jobId = await recordWithoutStart(null);
    const young = await sweepStrandedJobs(svc.deps);
    assert.equal(young.started, 0, 'a job a request may still be starting is left alone');
    assert.ok(young.left >= 1);

    const swept = await sweepStrandedJobs(svc.deps, Date.now() + svc.config.JOB_START_GRACE_MS + 1);
    assert.equal(swept.started, 1, JSON.stringify(swept));
    const job = await finalStatus(jobId);
    assert.equal(job?.status, 'completed', job?.error_message ?? '');
    assert.equal(await pendingStarts(svc.deps).get(jobId), null);
    // A second sweep finds nothing to do.
    const idle = await sweepStrandedJobs(svc.deps, Date.now() + svc.config.JOB_START_GRACE_MS + 1);
    assert.deepEqual(idle, { started: 0, failed: 0, cleared: 0, left: 0 });
  });

  test('a stranded job whose model key was never stored fails, saying so (the key is not in its request)', async () => {
    const llm = { provider: 'openai', model: 'gpt-4o-mini', hasKey: true };
    const jobId = await recordWithoutStart(null, llm);
    const swept = await sweepStrandedJobs(svc.deps, Date.now() + svc.config.JOB_START_GRACE_MS + 1);
    assert.equal(swept.failed, 1, JSON.stringify(swept));
    const job = await svc.deps.jobs.get(svc.tenantId, jobId);
    assert.equal(job?.status, 'failed');
    assert.match(
      job?.error_message ?? '',
      /model key or webhook secrets were not stored|submit the request again/,
    );
    await assert.rejects(describeWorkflow(jobId), WorkflowNotFoundError);
  });
});

describe('Temporal out of reach at the start', () => {
  test('503 with Retry-After keeps the job pending; a retry with the same key once Temporal is back runs it', async () => {
    // A second API whose Temporal is not there (nothing listens on port 1).
    const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const down = await buildApp({ ...svc.deps, temporal: unreachable });
    try {
      const res = await extract(down, 'temporal-was-down');
      assert.equal(res.statusCode, 503, res.body);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.equal(res.headers['retry-after'], '10');
      const problem = res.json();
      assert.equal(problem.type, '/problems/service-unavailable');
      const jobId = problem.job_id as string;
      assert.equal((await svc.deps.jobs.get(svc.tenantId, jobId))?.status, 'pending', 'the key is not burnt');

      const retried = await extract(svc.app, 'temporal-was-down');
      assert.equal(retried.statusCode, 200, retried.body);
      assert.equal(retried.json().job_id, jobId);
      // The sweeper, coming later, starts no second workflow.
      const swept = await sweepStrandedJobs(svc.deps, Date.now() + svc.config.JOB_START_GRACE_MS + 1);
      assert.equal(swept.started, 0);
    } finally {
      await down.close();
      await unreachable.connection.close().catch(() => undefined);
    }
  });
});
