// Open job streams (SSE) are bounded per tenant: one stream over STREAMS_PER_TENANT is a 429 problem, other
// tenants are unaffected, and a closed stream frees its slot. Over a real listener (streams stay open).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

const LIMIT = 3;
let svc: TestService;
let app: FastifyInstance;
let base: string;

before(async () => {
  svc = await startTestService({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  app = await buildApp({ ...svc.deps, config: { ...svc.config, STREAMS_PER_TENANT: LIMIT } });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await app?.close();
  await svc?.close();
});

/** A job that never ends (its log holds only job.created), so its streams stay open. */
async function runningJob(tenantId: string): Promise<string> {
  const jobId = `job_${randomUUID()}`;
  await svc.deps.events.append([jobLog(jobId, tenantId).created('extract')]);
  return jobId;
}

async function open(jobId: string, key: string) {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/v1/jobs/${jobId}/stream`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  return {
    res,
    close: () => {
      abort.abort();
      res.body?.cancel().catch(() => undefined);
    },
  };
}

describe('open streams per tenant', () => {
  test('one more than STREAMS_PER_TENANT is a 429 problem; another tenant still opens its own', async () => {
    const jobId = await runningJob(svc.tenantId);
    const streams = [];
    for (let i = 0; i < LIMIT; i++) {
      const stream = await open(jobId, svc.apiKey);
      assert.equal(stream.res.status, 200);
      streams.push(stream);
    }
    const refused = await open(jobId, svc.apiKey);
    assert.equal(refused.res.status, 429);
    assert.match(String(refused.res.headers.get('content-type')), /^application\/problem\+json/);
    const problem = await refused.res.json();
    assert.equal(problem.type, '/problems/too-many-streams');
    assert.match(problem.detail, /At most 3 job streams/);

    const other = await svc.newTenant('stream-other');
    const otherStream = await open(await runningJob(other.tenantId), other.apiKey);
    assert.equal(otherStream.res.status, 200);
    otherStream.close();

    // Closing a stream frees its slot (the server notices the closed socket within a poll).
    streams.pop()?.close();
    let reopened = await open(jobId, svc.apiKey);
    for (let i = 0; i < 50 && reopened.res.status === 429; i++) {
      await sleep(100);
      reopened = await open(jobId, svc.apiKey);
    }
    assert.equal(reopened.res.status, 200);
    streams.push(reopened);
    assert.equal((await open(jobId, svc.apiKey)).res.status, 429, 'the limit holds again');
    for (const stream of streams) stream.close();
  });

  test('a stream that ends with its job frees its slot too', async () => {
    const { tenantId, apiKey } = await svc.newTenant('stream-ending');
    const jobId = `job_${randomUUID()}`;
    const log = jobLog(jobId, tenantId);
    await svc.deps.events.append([log.created('extract'), log.started()]);
    const streams = [];
    for (let i = 0; i < LIMIT; i++) streams.push(await open(jobId, apiKey));
    assert.equal((await open(jobId, apiKey)).res.status, 429);
    await svc.deps.events.append([log.jobFailed()]);
    // Every stream sends `complete` and ends; their slots are free.
    for (const stream of streams) await stream.res.text();
    const again = await open(jobId, apiKey);
    assert.equal(again.res.status, 200);
    await again.res.text();
  });
});
