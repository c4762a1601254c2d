// The extract workflow (extractPageWorkflow) on the run's Temporal dev server (test/support/workflow-env.ts), with the
// real activities writing to FerretDB.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { createHtmlPool, type HtmlPool } from '../../activities/reading/html-pool/pool.js';
import { loadConfig } from '../../shared/config.js';
import type { JobEvent } from '../../shared/events.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { ContentStore } from '../../shared/store/contents.js';
import { EventStore } from '../../shared/store/event-store.js';
import { connectMongo, type Mongo } from '../../shared/store/mongo.js';
import {
  SEARCH_ATTRIBUTE_KEYS,
  WORKFLOW_TASK_TIMEOUTS,
  WORKFLOW_TYPES,
  workflowIdForJob,
} from '../../shared/temporal-names.js';
import type { ExtractWorkflowInput } from '../../workflows/extract-page.js';
import { type FakeLlmServer, startFakeLlmServer } from '../support/fake-llm-server.js';
import { type FixtureSite, html, startFixtureSite } from '../support/fixture-site.js';
import { startWorkflowEnv, type WorkflowEnv } from '../support/workflow-env.js';

let wf: WorkflowEnv;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let mongo: Mongo;
let events: EventStore;
let llm: FakeLlmServer;
let site: FixtureSite;
let htmlPool: HtmlPool;

before(async () => {
  wf = await startWorkflowEnv('workflow-test');
  const { infra } = wf;
  llm = await startFakeLlmServer();
  site = await startFixtureSite();
  site.route(
    '/ok',
    html('Lamp', '<h1>Desk Lamp</h1><p>Price: 30</p><p>' + 'A warm light. '.repeat(20) + '</p>'),
  );
  site.route('/slow', (_req, res) => {
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'text/html' }).end(html('Slow', '<h1>Slow</h1>')),
      4000,
    );
  });
  const config = loadConfig({
    MONGODB_URI: infra.mongoUri,
    MONGODB_DB: `wf_${randomUUID().slice(0, 8)}`,
    ALLOW_PRIVATE_ADDRESSES: 'true',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LOG_LEVEL: 'silent',
  });
  mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  events = new EventStore(mongo.db);
  env = wf.env;
  htmlPool = createHtmlPool(config);
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: wf.taskQueue,
    workflowBundle: wf.workflowBundle,
    activities: createActivities({
      config,
      events,
      contents: new ContentStore(mongo.db),
      html: htmlPool,
      browser: undefined,
      documents: undefined,
    }),
  });
  running = worker.run();
});

after(async () => {
  worker?.shutdown();
  await running;
  await htmlPool?.close();
  await mongo?.db.dropDatabase();
  await mongo?.close();
  await site?.close();
  await llm?.close();
  await wf?.close();
});

async function startExtract(path: string) {
  const jobId = `job_${randomUUID().replaceAll('-', '')}`;
  const workflowId = workflowIdForJob('extract', jobId);
  await events.append([
    {
      type: 'job.created',
      job_id: jobId,
      tenant_id: 'ten_test',
      seq: 0,
      event_id: randomUUID(),
      at: new Date().toISOString(),
      data: {
        job_type: 'extract',
        url: `${site.url}${path}`,
        capture_debug: false,
        workflow_id: workflowId,
        idempotency_key: null,
      },
    },
  ]);
  const input: ExtractWorkflowInput = {
    jobId,
    tenantId: 'ten_test',
    url: `${site.url}${path}`,
    fetchMode: 'static',
    cleanerChain: [{ name: 'markdown' }],
    schema: normalizeSchema({ name: 'string', price: 'number' }),
    captureDebug: false,
    firstSeq: 1,
  };
  const handle = await env.client.workflow.start(WORKFLOW_TYPES.extract, {
    workflowId,
    taskQueue: wf.taskQueue,
    args: [input],
    // As the API starts it: a cancel request reaches the page's local activity within 0.8 × this.
    workflowTaskTimeout: WORKFLOW_TASK_TIMEOUTS.extract,
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'pending' },
    ]),
  });
  return { jobId, handle };
}

const kinds = (log: JobEvent[]) => log.map((e) => `${e.seq}:${e.type}`);

async function statusAttribute(workflowId: string) {
  const description = await env.client.workflow.getHandle(workflowId).describe();
  return description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.status);
}

describe('extractPageWorkflow', () => {
  test('fetches, cleans, extracts, and records the job as events with gap-free seqs', async () => {
    const { jobId, handle } = await startExtract('/ok');
    const result = await handle.result();
    assert.equal(result.provider, 'openai');
    assert.ok(result.inputTokens > 0);
    const log = await events.list(jobId);
    assert.deepEqual(kinds(log), ['0:job.created', '1:job.started', '2:page.completed', '3:job.completed']);
    const page = log[2];
    assert.ok(page?.type === 'page.completed');
    assert.deepEqual(page.data.data, { name: 'Desk Lamp', price: 30 });
    assert.equal(await statusAttribute(handle.workflowId), 'completed');
    const history = await handle.fetchHistory();
    assert.ok(
      !JSON.stringify(history).includes('A warm light'),
      'page content never enters workflow history',
    );
  });

  test('a failing fetch fails the workflow with the error category as the failure type', async () => {
    const { jobId, handle } = await startExtract('/missing');
    const err = await handle.result().then(
      () => assert.fail('should fail'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError);
    assert.equal((err.cause as { type?: string }).type, 'http_status');
    const log = await events.list(jobId);
    assert.deepEqual(kinds(log), ['0:job.created', '1:job.started', '2:page.failed', '3:job.failed']);
    assert.equal(await statusAttribute(handle.workflowId), 'failed');
  });

  test('cancelling mid-fetch records the page and the job as cancelled', async () => {
    const { jobId, handle } = await startExtract('/slow');
    for (let i = 0; i < 50 && (await events.list(jobId)).length < 2; i++)
      await new Promise((r) => setTimeout(r, 100));
    await handle.cancel();
    await assert.rejects(handle.result());
    const log = await events.list(jobId);
    assert.deepEqual(kinds(log), ['0:job.created', '1:job.started', '2:page.failed', '3:job.cancelled']);
    const job = await events.project(jobId);
    assert.equal(job?.status, 'cancelled');
    assert.equal(await statusAttribute(handle.workflowId), 'cancelled');
  });
});
