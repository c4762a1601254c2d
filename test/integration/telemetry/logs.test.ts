// The API's and the worker's log lines during extracts and a crawl that use a job-scoped provider key, a stored
// provider key and a webhook secret: each line is one JSON object, job lines name the job, workflow and
// tenant, and no line holds a secret.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type Receiver, startReceiver } from '../../webhooks/receiver.js';

// None of these looks like a key to the last-resort scrubber: they must stay out of the lines by design.
const JOB_KEY = 'job-scoped-provider-key-3f9a1c';
const BAD_JOB_KEY = 'bad-provider-key-b71e02';
const STORED_KEY = 'stored-provider-key-c05d88';
const WEBHOOK_SECRET = 'hook-signing-secret-9e4b7d';

let text = '';
const capture = new Writable({
  write(chunk, _encoding, done) {
    text += chunk.toString();
    done();
  },
});
let svc: TestService;
let site: FixtureSite;
let rx: Receiver;

before(async () => {
  svc = await startTestService({ env: { LOG_LEVEL: 'debug' }, logStream: capture });
  site = await startFixtureSite();
  rx = await startReceiver();
  site.route('/', html('Shop', '<main><h1>Shop</h1><a href="/product">Kettle</a></main>'));
  site.route('/product', html('Kettle', '<main><h1>Blue Kettle</h1><p>Price: 24.5</p></main>'));
});
after(async () => {
  await rx?.close();
  await site?.close();
  await svc?.close();
});

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, key?: string) =>
  svc.app.inject({ method, url, headers: svc.auth(key), ...(payload ? { payload } : {}) });

test('every line is JSON, job lines name job, workflow and tenant, no line holds a secret', async () => {
  const schema = { name: 'string', price: 'number' };
  const webhook = { url: `${rx.url}/hook`, secret: WEBHOOK_SECRET };
  const llm = (api_key: string) => ({
    provider: 'openai_compatible',
    model: 'my-model',
    api_key,
    base_url: svc.llm.openaiBaseUrl,
  });
  const stored = await call('PUT', '/api/v1/llm/keys', {
    provider: 'openai',
    api_key: STORED_KEY,
    is_enabled: true,
  });
  assert.ok(stored.statusCode < 300, stored.body);
  const ok = await call('POST', '/api/v1/extract', {
    url: `${site.url}/product`,
    schema,
    llm_config: llm(JOB_KEY),
    webhook,
  });
  assert.equal(ok.statusCode, 200, ok.body);
  const refused = await call('POST', '/api/v1/extract', {
    url: `${site.url}/product`,
    schema,
    llm_config: llm(BAD_JOB_KEY),
  });
  const crawl = await call('POST', '/api/v1/crawl', { url: `${site.url}/`, schema, webhook });
  assert.ok(crawl.statusCode < 300, crawl.body);
  const crawlId = crawl.json().job_id as string;
  await waitForJobEnd(svc, crawlId);
  await rx.waitFor('/hook', 4);
  assert.equal((await call('GET', '/api/v1/jobs', undefined, 'sk_not_a_real_key_123')).statusCode, 401);
  // The runtime logger forwards the worker's lines in batches, later still on a busy machine: wait until the
  // lines asserted on below (each job's activity and webhook lines, the refused key's) have come, not for a
  // fixed time. Past the deadline the assertions below say which is missing.
  const jobIds = [ok.json().job_id, refused.json().job_id, crawlId];
  const arrived = () => {
    const all = text.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return []; // a line still being written
      }
    });
    const worker = all.filter((r) => typeof r.workflowId === 'string');
    const refusedKey = all.some(
      (r) => r.msg === 'request completed' && (r.res as { statusCode?: number })?.statusCode === 401,
    );
    return (
      refusedKey &&
      jobIds.every(
        (jobId) =>
          worker.some((r) => r.jobId === jobId && typeof r.activityType === 'string') &&
          (jobId === refused.json().job_id ||
            worker.some((r) => r.jobId === jobId && String(r.workflowId).startsWith('webhook-'))),
      )
    );
  };
  for (const deadline = Date.now() + 30_000; !arrived() && Date.now() < deadline; )
    await new Promise((r) => setTimeout(r, 100));

  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const parse = (line: string): Record<string, unknown> => {
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`not a JSON line: ${line}`);
    }
  };
  const records = lines.map(parse);
  for (const secret of [
    JOB_KEY,
    BAD_JOB_KEY,
    STORED_KEY,
    WEBHOOK_SECRET,
    svc.apiKey,
    'sk_not_a_real_key_123',
  ]) {
    const leaked = lines.find((l) => l.includes(secret));
    assert.equal(leaked, undefined, `a log line holds a secret: ${leaked}`);
  }
  for (const operatorKey of [svc.config.OPENAI_API_KEY, svc.config.ANTHROPIC_API_KEY]) {
    assert.ok(!text.includes(operatorKey as string), 'operator keys stay out of the logs');
  }

  // Worker lines about a workflow (SDK, activity and workflow loggers) carry the job and the tenant.
  const workerJobLines = records.filter((r) => typeof r.workflowId === 'string');
  for (const jobId of jobIds) {
    assert.ok(
      workerJobLines.some((r) => r.jobId === jobId && typeof r.activityType === 'string'),
      `activity lines of ${jobId}`,
    );
    assert.ok(
      workerJobLines.some((r) => r.jobId === jobId && String(r.workflowId).startsWith('webhook-')) ||
        jobId === refused.json().job_id,
      `webhook delivery lines of ${jobId}`,
    );
  }
  for (const r of workerJobLines) {
    assert.match(String(r.jobId), /^job_/, `jobId on ${JSON.stringify(r)}`);
    assert.equal(r.tenantId, svc.tenantId, `tenantId on ${JSON.stringify(r)}`);
    assert.ok(
      String(r.workflowId).includes(String(r.jobId)),
      `the workflow is the job's: ${JSON.stringify(r)}`,
    );
  }

  // API lines: each request's lines carry its id; authenticated ones the tenant; job requests the job.
  const requestLines = records.filter((r) => r.reqId !== undefined);
  assert.ok(requestLines.length > 0);
  const completed = requestLines.filter((r) => r.msg === 'request completed');
  const extractDone = completed.find((r) => r.jobId === ok.json().job_id);
  assert.ok(extractDone, 'the extract request line names its job');
  assert.equal(extractDone.tenantId, svc.tenantId);
  assert.equal(extractDone.workflowId, `extract-${ok.json().job_id}`);
  const status = (r: Record<string, unknown>) => (r.res as { statusCode: number }).statusCode;
  assert.ok(
    completed.some((r) => status(r) === 401 && !r.tenantId),
    'an unknown key has no tenant',
  );
  assert.ok(completed.filter((r) => status(r) < 400).every((r) => r.tenantId));
  // Only the line Fastify writes before authentication lacks the tenant.
  for (const r of requestLines.filter((r) => r.msg !== 'incoming request' && status(r) !== 401)) {
    assert.equal(r.tenantId, svc.tenantId, JSON.stringify(r));
  }
});
