// The TypeScript client (clients/typescript) against the real stack over HTTP, through a recording proxy
// that can answer 429/503 itself or drop a stream mid-way; and the committed types against the live document.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  createClient,
  type JobStreamEvent,
  ProblemError,
  verifyWebhook,
} from '../../../clients/typescript/src/index.js';
import { generateSchemaSource, SCHEMA_PATH } from '../../../scripts/generate-client.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type Receiver, startReceiver } from '../../webhooks/receiver.js';
import { startProxy, type TestProxy } from './proxy.js';

let svc: TestService;
let site: FixtureSite;
let rx: Receiver;
let base: string;
let proxy: TestProxy;
let client: ReturnType<typeof createClient>;

const SCHEMA = { title: 'string', price: 'number' };
const page = (title: string, links: string[]) =>
  html(
    title,
    `<main><h1>${title}</h1><p>Price: 12.5</p><p>${title} is a product page with enough text to extract ` +
      `from.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main>`,
  );

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  site = await startFixtureSite();
  site.route('/', page('Home', ['/a', '/b', '/c']));
  for (const p of ['a', 'b', 'c']) site.route(`/${p}`, page(`Item ${p}`, ['/']));
  rx = await startReceiver();
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  proxy = await startProxy(base);
  client = createClient({ baseUrl: proxy.url, apiKey: svc.apiKey });
});
after(async () => {
  await proxy?.close();
  await rx?.close();
  await site?.close();
  await svc?.close();
});

const crawlBody = () => ({
  url: `${site.url}/`,
  schema: SCHEMA,
  options: { max_pages: 4, max_depth: 1, follow_selector: 'main a' },
});

async function collect(events: AsyncIterable<JobStreamEvent>) {
  const out: JobStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('TypeScript client', () => {
  test('extract returns data; the POST carries an idempotency key, and the same key gives the same job', async () => {
    proxy.plan = () => ({ kind: 'forward' });
    const first = await client.extract({ url: `${site.url}/a`, schema: SCHEMA });
    assert.ok('data' in first, 'a 200 with data');
    assert.deepEqual(Object.keys(first.data as object).sort(), ['price', 'title']);
    const sent = proxy.seen.filter((s) => s.path === '/api/v1/extract').at(-1);
    assert.match(String(sent?.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
    const key = `client-test-${Date.now()}`;
    const a = await client.extract({ url: `${site.url}/b`, schema: SCHEMA }, { idempotencyKey: key });
    const b = await client.extract({ url: `${site.url}/b`, schema: SCHEMA }, { idempotencyKey: key });
    assert.equal(a.job_id, b.job_id);
  });

  test('crawl returns the job; waitForJob waits for its end; results in json, jsonl and yaml', async () => {
    const started = await client.crawl(crawlBody());
    assert.match(started.job_id, /\S/);
    const job = await client.waitForJob(started.job_id, { timeoutMs: 60_000, intervalMs: 200 });
    assert.equal(job.status, 'completed');
    assert.equal(job.page_count, 4);
    const results = await client.results(job.id);
    assert.equal(results.length, 4);
    assert.ok(results.every((r) => r.status === 'completed' && r.url.startsWith(site.url)));
    const jsonl = await client.results(job.id, { format: 'jsonl' });
    assert.deepEqual(
      jsonl
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id),
      results.map((r) => r.id),
    );
    assert.match(await client.results(job.id, { format: 'yaml' }), /^- id: /);
    assert.ok(Array.isArray(await client.results(job.id, { merge: true })));
    await assert.rejects(client.cancel(job.id), (e: ProblemError) => e.status === 409);
    await assert.rejects(client.retry(job.id), (e: ProblemError) => e.status === 409);
  });

  test('a failed page is a ProblemError with job_id and error_category; retry re-runs it as a new job', async () => {
    const err = await client.extract({ url: `${site.url}/missing`, schema: SCHEMA }).catch((e: unknown) => e);
    assert.ok(err instanceof ProblemError, String(err));
    assert.ok(err.job_id && err.error_category, JSON.stringify(err));
    const again = await client.retry(err.job_id);
    assert.notEqual(again.id, err.job_id);
    assert.equal(
      (await client.waitForJob(again.id, { timeoutMs: 60_000, intervalMs: 200 })).status,
      'failed',
    );
  });

  test('stream: a connection dropped mid-stream resumes with Last-Event-ID, no event lost or repeated', async () => {
    const { job_id } = await client.crawl(crawlBody());
    let streams = 0;
    proxy.plan = (seen) =>
      seen.path.endsWith('/stream') && streams++ === 0
        ? { kind: 'cut-after-events', events: 3 }
        : { kind: 'forward' };
    const live = await collect(client.stream(job_id)); // read while the crawl runs, through the cut
    proxy.plan = () => ({ kind: 'forward' });
    const whole = await collect(createClient({ baseUrl: base, apiKey: svc.apiKey }).stream(job_id));
    assert.equal(whole.at(-1)?.event, 'complete');
    assert.ok(whole.length > 4, `${whole.length} events`);
    assert.deepEqual(live, whole);
    const resumed = proxy.seen.filter((s) => s.path.endsWith(`/${job_id}/stream`));
    assert.ok(resumed.length >= 2, 'the client reconnected');
    const lastIds = resumed.map((s) => s.headers['last-event-id']);
    assert.equal(lastIds[0], undefined);
    assert.ok(
      whole.some((e) => String(e.id) === lastIds[1]),
      `resumed after an event it had: ${lastIds[1]}`,
    );

    // A consumer that stops and later goes on from the last id it handled.
    const head: JobStreamEvent[] = [];
    for await (const event of client.stream(job_id)) {
      head.push(event);
      if (head.length === 2) break;
    }
    const tail = await collect(client.stream(job_id, { lastEventId: head.at(-1)?.id }));
    assert.deepEqual([...head, ...tail], whole);
  });

  test('a 422 is a ProblemError naming each bad field', async () => {
    const err = await client.extract({ url: 'not a url', schema: SCHEMA }).catch((e: unknown) => e);
    assert.ok(err instanceof ProblemError, String(err));
    assert.equal(err.status, 422);
    assert.match(err.type, /^https?:|^\//);
    assert.ok(
      err.errors.some((e) => e.location === 'body.url'),
      JSON.stringify(err.errors),
    );
  });

  test('429 and 503 are retried after Retry-After; the same idempotency key is sent again', async () => {
    const tooMany = { 'content-type': 'application/problem+json', 'retry-after': '1' };
    let calls = 0;
    proxy.plan = (seen) =>
      seen.path.startsWith('/api/v1/extract') && calls++ === 0
        ? { kind: 'answer', status: 503, headers: tooMany, body: '{"status":503,"title":"Unavailable"}' }
        : { kind: 'forward' };
    const t0 = Date.now();
    const extracted = await client.extract({ url: `${site.url}/c`, schema: SCHEMA });
    assert.ok(Date.now() - t0 >= 1000, 'waited the Retry-After second');
    const posts = proxy.seen.filter((s) => s.path === '/api/v1/extract').slice(-2);
    assert.equal(posts[0]?.headers['idempotency-key'], posts[1]?.headers['idempotency-key']);
    assert.ok('data' in extracted);

    // The service's own rate limit: a Retry-After beyond maxRetryDelayMs comes back as the 429 problem.
    proxy.plan = () => ({ kind: 'forward' });
    const limited = await svc.newTenant('client-limited');
    await svc.deps.tenants.setRateLimit(limited.tenantId, 1);
    const impatient = createClient({ baseUrl: proxy.url, apiKey: limited.apiKey, maxRetryDelayMs: 100 });
    await impatient.job('job_nonexistent').catch(() => undefined);
    const before = proxy.seen.length;
    const err = await impatient.job('job_nonexistent').catch((e: unknown) => e);
    assert.ok(err instanceof ProblemError && err.status === 429, String(err));
    assert.ok((err.retryAfter ?? 0) > 0);
    assert.equal(proxy.seen.length - before, 1, 'no retry against a Retry-After beyond the bound');
  });

  test('verifyWebhook accepts a real delivery, rejects a tampered, stale or stripped one or another secret', async () => {
    const secret = 'client-webhook-secret';
    await client.extract({
      url: `${site.url}/a`,
      schema: SCHEMA,
      webhook: { url: `${rx.url}/hook`, secret },
    });
    const [delivery] = await rx.waitFor('/hook', 1);
    assert.ok(delivery);
    assert.equal(await verifyWebhook(delivery.body, delivery.headers, secret), true);
    assert.equal(
      await verifyWebhook(new TextEncoder().encode(delivery.body), delivery.headers, secret),
      true,
    );
    assert.equal(await verifyWebhook(delivery.body.replace('}', ',"x":1}'), delivery.headers, secret), false);
    assert.equal(await verifyWebhook(delivery.body, delivery.headers, 'another-secret'), false);
    const stale = { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
    assert.equal(await verifyWebhook(delivery.body, stale, secret), false);
    const anHourOn = Date.now() + 3_600_000; // the delivery replayed an hour later
    assert.equal(
      await verifyWebhook(delivery.body, delivery.headers, secret, { now: () => anHourOn }),
      false,
    );
    const tolerant = { now: () => anHourOn, toleranceSeconds: 7200 };
    assert.equal(await verifyWebhook(delivery.body, delivery.headers, secret, tolerant), true);
    const ahead = { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 3600) };
    assert.equal(await verifyWebhook(delivery.body, ahead, secret), false);
    // The Standard Webhooks headers stripped: the body-only signature passes only when asked for.
    const legacy = { 'x-service-signature': String(delivery.headers['x-service-signature']) };
    const optIn = { allowLegacySignature: true };
    assert.equal(await verifyWebhook(delivery.body, legacy, secret), false);
    assert.equal(await verifyWebhook(delivery.body, legacy, secret, optIn), true);
    assert.equal(await verifyWebhook(`${delivery.body} `, legacy, secret, optIn), false);
    assert.equal(
      await verifyWebhook(delivery.body, legacy, secret, { ...optIn, now: () => anHourOn }),
      false,
    );
    const { 'webhook-signature': _, ...partly } = delivery.headers;
    assert.equal(await verifyWebhook(delivery.body, partly, secret, optIn), false);
  });

  test('the committed schema.d.ts is what the generator makes of the live document', async () => {
    const document = await (await fetch(`${base}/api/v1/openapi.json`)).json();
    const generated = await generateSchemaSource(document);
    assert.ok(
      generated === readFileSync(SCHEMA_PATH, 'utf8'),
      'clients/typescript/src/schema.d.ts is out of date: run `npm run client:generate`',
    );
  });
});
