// GET /api/v1/jobs/{id}/stream over a real HTTP listener (app.inject cannot stream): history, live events,
// Last-Event-ID resume, heartbeats, tenant isolation, and polling that stops when the client leaves.
// Jobs run on the real workflows with fake activities (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobEvent } from '../../shared/events.js';
import { StreamEventSchema } from '../../shared/schemas/stream.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();
let base: string;

before(async () => {
  svc = await startTestService({
    env: { SSE_HEARTBEAT_MS: '150', RATE_LIMIT_PER_MINUTE: '1000' },
    activities: fakeActivities({ pages: site.pages }),
  });
  site.route(
    '/product',
    html(
      'Blue Kettle',
      '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>Brand: Acme</p><p>A kettle that boils water quickly and ' +
        'quietly, with an automatic shut-off and a removable filter. Holds 1.7 litres.</p></main>',
    ),
  );
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await svc?.close();
});

interface Frame {
  event: string;
  id: number;
  retry: number;
  data: any;
}

/** An SSE client reading in the background: frames and heartbeat comments pile up as they arrive. */
async function openStream(jobId: string, opts: { headers?: Record<string, string>; query?: string } = {}) {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/v1/jobs/${jobId}/stream${opts.query ?? ''}`, {
    headers: { ...svc.auth(), accept: 'text/event-stream', ...opts.headers },
    signal: abort.signal,
  });
  const refyne = opts.headers?.['x-api-version'] === 'refyne';
  const client = {
    res,
    frames: [] as Frame[],
    heartbeats: 0,
    ended: false,
    refyne,
    close: () => abort.abort(),
  };
  if (res.status !== 200 || !res.body) return client;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = '';
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += read.value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          parseBlock(buffer.slice(0, end), client);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
      client.ended = true;
    } catch {
      // aborted by the test
    }
  })();
  return client;
}
type Client = Awaited<ReturnType<typeof openStream>>;

function parseBlock(block: string, client: Client) {
  const fields: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line === ': heartbeat') client.heartbeats++;
    const match = /^(id|event|retry|data): (.*)$/.exec(line);
    if (match) fields[match[1] as string] = (fields[match[1] as string] ?? '') + (match[2] as string);
  }
  if (!fields.event) return;
  const frame = {
    event: fields.event,
    id: Number(fields.id),
    retry: Number(fields.retry),
    data: JSON.parse(fields.data ?? 'null'),
  };
  if (!client.refyne) StreamEventSchema.parse(frame);
  client.frames.push(frame);
}

async function until(what: string, check: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
const untilFrames = (c: Client, n: number) =>
  until(`${n} frames (have ${c.frames.length})`, () => c.frames.length >= n);
const names = (frames: Frame[]) => frames.map((f) => `${f.event}@${f.id}`);

/** A job of the main tenant whose log the test writes by hand. */
async function newJob(type: 'crawl' | 'extract' = 'crawl') {
  const jobId = `job_stream_${randomUUID().slice(0, 8)}`;
  const log = jobLog(jobId, svc.tenantId);
  await svc.deps.events.append([log.created(type)]);
  return { jobId, log, append: (...events: JobEvent[]) => svc.deps.events.append(events) };
}

describe('GET /api/v1/jobs/{id}/stream', () => {
  test('a finished extract job: the whole history, then complete, then the stream ends', async () => {
    const posted = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { url: `${site.url}/product`, schema: { name: 'string', price: 'number', brand: 'string' } },
    });
    assert.equal(posted.statusCode, 200, posted.body);
    const { job_id, data } = posted.json();

    const client = await openStream(job_id);
    assert.equal(client.res.status, 200);
    assert.match(client.res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(client.res.headers.get('cache-control'), 'no-cache');
    assert.equal(client.res.headers.get('x-accel-buffering'), 'no');
    await until('the stream to end', () => client.ended);

    const frames = client.frames;
    assert.equal(frames[0]?.event, 'status');
    assert.deepEqual(
      frames.map((f) => f.event).filter((e) => e !== 'status'),
      ['result', 'complete'],
    );
    const result = frames.find((f) => f.event === 'result');
    assert.equal(result?.data.status, 'completed');
    assert.equal(result?.data.url, `${site.url}/product`);
    assert.deepEqual(result?.data.data, data);
    const complete = frames.at(-1);
    assert.equal(complete?.event, 'complete');
    assert.deepEqual(
      { ...complete?.data, cost_usd: undefined },
      {
        job_id,
        status: 'completed',
        page_count: 1,
        failed_count: 0,
        cost_usd: undefined,
        budget_exhausted: false,
        error_category: null,
        error_message: null,
        results_url: `/api/v1/jobs/${job_id}/results`,
      },
    );
    assert.ok(complete.data.cost_usd > 0);
    assert.ok(frames.every((f) => Number.isInteger(f.id) && f.retry === 3000));
    assert.ok(
      frames.every((f, i) => i === 0 || f.id > (frames[i - 1] as Frame).id),
      'ids strictly increase',
    );
  });

  test('a running job: events arrive live, then complete ends the stream', async () => {
    const { jobId, log, append } = await newJob();
    const client = await openStream(jobId);
    await untilFrames(client, 1);
    assert.deepEqual(names(client.frames), ['status@0']);
    assert.equal(client.frames[0]?.data.status, 'pending');

    await append(log.started());
    await untilFrames(client, 2);
    assert.equal(client.frames[1]?.data.status, 'running');

    await append(
      log.discovered(['https://a.test/', 'https://a.test/b'], 0),
      log.completed('https://a.test/', { n: 1 }, 0),
    );
    await untilFrames(client, 5);
    assert.deepEqual(names(client.frames.slice(2)), ['status@20', 'result@30', 'status@31']);
    assert.deepEqual(client.frames[3]?.data.data, { n: 1 });
    assert.equal(client.frames[4]?.data.page_count, 1);
    assert.equal(client.frames[4]?.data.urls_queued, 1);

    await append(log.failed('https://a.test/b', 1));
    await untilFrames(client, 8);
    assert.deepEqual(names(client.frames.slice(5)), ['result@40', 'error@41', 'status@42']);
    assert.deepEqual(client.frames[6]?.data, {
      job_id: jobId,
      url: 'https://a.test/b',
      error_category: 'http_status',
      error_message: 'HTTP 404',
      message: 'https://a.test/b: HTTP 404',
    });

    await append(log.jobCompleted());
    await until('the stream to end', () => client.ended);
    assert.deepEqual(names(client.frames.slice(8)), ['complete@50']);
    assert.equal(client.frames[8]?.data.status, 'completed');
  });

  test('Last-Event-ID (or last_event_id) resumes after that event, with no duplicates', async () => {
    const { jobId, log, append } = await newJob();
    await append(log.started(), log.completed('https://a.test/1', 1), log.completed('https://a.test/2', 2));
    const first = await openStream(jobId);
    await untilFrames(first, 6);
    assert.deepEqual(names(first.frames), [
      'status@0',
      'status@10',
      'result@20',
      'status@21',
      'result@30',
      'status@31',
    ]);
    first.close();
    await append(log.completed('https://a.test/3', 3), log.jobCompleted());

    const lastId = String(first.frames.at(-1)?.id);
    const resumed = await openStream(jobId, { headers: { 'last-event-id': lastId } });
    await until('the resumed stream to end', () => resumed.ended);
    assert.deepEqual(names(resumed.frames), ['result@40', 'status@41', 'complete@50']);
    const urls = [...first.frames, ...resumed.frames]
      .filter((f) => f.event === 'result')
      .map((f) => f.data.url);
    assert.deepEqual(urls, ['https://a.test/1', 'https://a.test/2', 'https://a.test/3']);

    const byQuery = await openStream(jobId, { query: '?last_event_id=20' });
    await until('the query-resumed stream to end', () => byQuery.ended);
    assert.deepEqual(names(byQuery.frames), [
      'status@21',
      'result@30',
      'status@31',
      'result@40',
      'status@41',
      'complete@50',
    ]);

    const late = await openStream(jobId);
    await until('the late stream to end', () => late.ended);
    assert.equal(
      late.frames.filter((f) => f.event === 'result').length,
      3,
      'a late client gets the whole history',
    );
  });

  test('a heartbeat comment comes at the configured interval while nothing happens', async () => {
    const { jobId } = await newJob();
    const client = await openStream(jobId);
    await untilFrames(client, 1);
    await until('three heartbeats', () => client.heartbeats >= 3, 5_000);
    assert.equal(client.frames.length, 1, 'heartbeats are comments, not events');
    client.close();
  });

  test("another tenant's job, or no such job, is a 404 problem before any stream starts", async () => {
    const { jobId } = await newJob();
    const other = await svc.newTenant(`other-${randomUUID().slice(0, 6)}`);
    const theirs = await openStream(jobId, { headers: svc.auth(other.apiKey) });
    assert.equal(theirs.res.status, 404);
    assert.match(theirs.res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal((await theirs.res.json()).status, 404);
    const missing = await openStream('job_does_not_exist');
    assert.equal(missing.res.status, 404);
    await missing.res.body?.cancel();
  });

  test('polling is bounded while idle and stops when the client disconnects', async () => {
    const { jobId } = await newJob();
    const events = svc.deps.events;
    const list = events.list;
    let calls = 0;
    events.list = (id, ...rest) => {
      if (id === jobId) calls++;
      return list.call(events, id, ...rest);
    };
    try {
      const client = await openStream(jobId);
      await untilFrames(client, 1);
      await sleep(1500); // the backoff reaches its ceiling
      const idleStart = calls;
      await sleep(2000);
      const idleCalls = calls - idleStart;
      assert.ok(idleCalls >= 1 && idleCalls <= 4, `about one read a second while idle (${idleCalls} in 2 s)`);

      client.close();
      await sleep(300);
      const atClose = calls;
      await sleep(2500);
      assert.equal(calls, atClose, 'no reads after the client left');
    } finally {
      events.list = list;
    }
  });

  test('shutting the server down ends open streams instead of waiting for them', {
    timeout: 20_000,
  }, async () => {
    const other = await startTestService({ worker: false });
    try {
      const otherBase = await other.app.listen({ port: 0, host: '127.0.0.1' });
      const jobId = 'job_stream_shutdown';
      await other.deps.events.append([jobLog(jobId, other.tenantId).created()]);
      const res = await fetch(`${otherBase}/api/v1/jobs/${jobId}/stream`, { headers: other.auth() });
      assert.equal(res.status, 200);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      const first = await reader.read();
      assert.match(first.value ?? '', /^id: 0\nevent: status\n/);
      const closed = await Promise.race([
        other.app.close().then(() => 'closed'),
        sleep(5000).then(() => 'hung'),
      ]);
      assert.equal(closed, 'closed');
      let rest = await reader.read();
      while (!rest.done) rest = await reader.read();
    } finally {
      await other.close();
    }
  });

  test("API version refyne: each event's data holds exactly the product's SSE event fields", async () => {
    const { jobId, log, append } = await newJob();
    await append(
      log.started(),
      log.discovered(['https://a.test/', 'https://a.test/b'], 0),
      log.completed('https://a.test/', { n: 1 }, 0),
      log.failed('https://a.test/b', 1),
      log.jobCompleted(),
    );
    const client = await openStream(jobId, { headers: { 'x-api-version': 'refyne' } });
    assert.equal(client.res.headers.get('x-api-version'), 'refyne');
    await until('the stream to end', () => client.ended);
    const keys = (event: string) =>
      client.frames.filter((f) => f.event === event).map((f) => Object.keys(f.data).sort().join(','));
    assert.deepEqual(new Set(keys('status')), new Set(['job_id,page_count,status,urls_queued']));
    assert.deepEqual(keys('result'), [
      'error_category,error_message,id,llm_model,llm_provider,status,url',
      'error_category,error_message,id,llm_model,llm_provider,status,url',
    ]);
    assert.deepEqual(
      client.frames.filter((f) => f.event === 'error').map((f) => f.data),
      [{ message: 'https://a.test/b: HTTP 404' }],
    );
    assert.deepEqual(keys('complete'), [
      'cost_usd,error_category,error_message,job_id,page_count,results_url,status',
    ]);
  });

  test('the OpenAPI document describes the stream', async () => {
    const doc = (await svc.app.inject({ url: '/api/v1/openapi.json' })).json();
    const op = doc.paths['/api/v1/jobs/{id}/stream'].get;
    // Each event as sent: text fields, its data one line of JSON described by contentSchema.
    const events = op.responses['200'].content['text/event-stream'].schema.oneOf;
    assert.deepEqual(
      events.map(
        (e: { properties: { event: { const?: string; enum?: string[] } } }) =>
          e.properties.event.const ?? e.properties.event.enum?.[0],
      ),
      ['status', 'result', 'error', 'complete'],
    );
    for (const e of events) {
      assert.equal(e.properties.id.type, 'string');
      assert.equal(e.properties.data.type, 'string');
      const ref = e.properties.data.contentSchema.$ref.split('/').pop();
      assert.ok(doc.components.schemas[ref], `${ref} is a component`);
    }
    assert.ok(op.responses['404'].content['application/problem+json']);
    assert.ok(doc.components.schemas.JobStreamEvent, 'the parsed event stays a component (clients yield it)');
    assert.ok(
      op.parameters.some(
        (p: { name: string; in: string }) => p.name === 'last-event-id' && p.in === 'header',
      ),
    );
  });
});
