import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type Received, type Receiver, startReceiver } from '../../webhooks/receiver.js';

let svc: TestService;
let site: FixtureSite;
let rx: Receiver;

before(async () => {
  // The deliveries are polled every 100 ms: far more than the default per-tenant rate limit over a file.
  svc = await startTestService({
    env: { WEBHOOK_RETRY_DELAYS_MS: '300,600', RATE_LIMIT_PER_MINUTE: '10000' },
  });
  site = await startFixtureSite();
  rx = await startReceiver();
  site.route(
    '/product',
    html(
      'Blue Kettle',
      '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>Brand: Acme</p><p>A kettle that boils water quickly and ' +
        'quietly, with an automatic shut-off and a removable filter. Holds 1.7 litres.</p></main>',
    ),
  );
  site.route('/gone', (_req, res) =>
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>gone</h1>'),
  );
});
after(async () => {
  await rx?.close();
  await site?.close();
  await svc?.close();
});

const schema = { name: 'string', price: 'number', brand: 'string' };

async function extract(extra: object, path = '/product', key?: string) {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(key),
    payload: { url: `${site.url}${path}`, schema, ...extra },
  });
  assert.ok([200, 422, 502].includes(res.statusCode), res.body);
  return res.json() as { job_id: string };
}

async function deliveries(jobId: string, key?: string) {
  const res = await svc.app.inject({
    url: `/api/v1/jobs/${jobId}/webhook-deliveries`,
    headers: svc.auth(key),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().deliveries as any[];
}

async function waitDeliveries(jobId: string, done: (d: any[]) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await deliveries(jobId);
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`deliveries of ${jobId}: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const event = (r: Received) => JSON.parse(r.body).event as string;

/** Waits for a workflow to end, then for every child workflow it started (its webhook deliveries) to end. */
async function workflowAndChildrenEnded(workflowId: string): Promise<void> {
  const handle = svc.deps.temporal.workflow.getHandle(workflowId);
  await handle.result().catch(() => undefined); // a failed job or delivery has ended too
  const history = await handle.fetchHistory();
  for (const e of history.events ?? []) {
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (child) await workflowAndChildrenEnded(child);
  }
}

/**
 * Waits until the jobs' workflows and all the deliveries they started have ended: nothing can reach the
 * receiver after that, so what it holds then is everything these jobs will ever send.
 */
async function settled(jobIds: string[], key?: string) {
  for (const jobId of jobIds) {
    const res = await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth(key) });
    assert.equal(res.statusCode, 200, res.body);
    await workflowAndChildrenEnded(res.json().workflow_id as string);
  }
}

describe('webhook delivery', () => {
  test('signed inline webhook: both signatures verify, custom headers, job.completed carries results', async () => {
    const secret = 'whk-test-secret';
    const { job_id } = await extract({
      webhook: { url: `${rx.url}/signed`, secret, headers: [{ name: 'X-Team', value: 'data' }] },
    });
    const got = await rx.waitFor('/signed', 2);
    await settled([job_id]);
    assert.deepEqual(rx.on('/signed').map(event).sort(), ['job.completed', 'job.started']);
    for (const r of got) {
      const h = r.headers;
      assert.equal(h['content-type'], 'application/json');
      assert.equal(h['x-team'], 'data');
      assert.equal(h['x-service-event'], event(r));
      assert.match(String(h['x-service-delivery']), /^dlv_/);
      const expected = createHmac('sha256', secret).update(r.body).digest('hex');
      assert.match(String(h['x-service-signature']), /^[0-9a-f]{64}$/);
      assert.ok(timingSafeEqual(Buffer.from(expected), Buffer.from(String(h['x-service-signature']))));
      // Standard Webhooks: v1,<base64 HMAC of "id.timestamp.body"> keyed by the secret's bytes.
      assert.equal(h['webhook-id'], h['x-service-delivery']);
      assert.ok(Math.abs(Number(h['webhook-timestamp']) - Date.now() / 1000) < 60);
      const signed = `${h['webhook-id']}.${h['webhook-timestamp']}.${r.body}`;
      const v1 = createHmac('sha256', Buffer.from(secret)).update(signed).digest('base64');
      assert.equal(h['webhook-signature'], `v1,${v1}`);
    }
    const completed = got.find((r) => event(r) === 'job.completed') as Received;
    // An independent implementation over the exact body bytes.
    const openssl = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: completed.body })
      .toString()
      .trim()
      .split(/\s+/)
      .at(-1);
    assert.equal(openssl, completed.headers['x-service-signature']);

    const body = JSON.parse(completed.body);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'event', 'job_id', 'timestamp']);
    assert.equal(body.job_id, job_id);
    assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(body.data.job_type, 'extract');
    assert.equal(body.data.status, 'completed');
    assert.equal(body.data.page_count, 1);
    assert.equal(typeof body.data.cost_usd, 'number');
    assert.deepEqual(body.data.results[0].data, { name: 'Blue Kettle', price: 24.5, brand: 'Acme' });
    assert.equal(body.data.results_truncated, false);
    assert.equal(body.data.results_total, 1);
    assert.equal(body.data.results_url, `/api/v1/jobs/${job_id}/results`);
    const started = JSON.parse((got.find((r) => event(r) === 'job.started') as Received).body);
    assert.deepEqual(started.data, { job_type: 'extract', url: `${site.url}/product`, status: 'running' });

    const list = await waitDeliveries(
      job_id,
      (d) => d.length === 2 && d.every((x) => x.status === 'success'),
    );
    for (const d of list) {
      assert.equal(d.attempt_number, 1);
      assert.equal(d.max_attempts, 3);
      assert.equal(d.status_code, 200);
      assert.equal(d.webhook_id, null);
      assert.equal(d.url, `${rx.url}/signed`);
      assert.ok(d.delivered_at && d.response_time_ms >= 0);
    }
    const other = await svc.app.inject({ url: `/api/v1/jobs/${job_id}/webhooks`, headers: svc.auth() });
    assert.equal(other.json().job_id, job_id);
    assert.equal(other.json().deliveries.length, 2);
  });

  test('no secret, no signature headers; the same URL twice gets one delivery per event', async () => {
    const url = `${rx.url}/plain`;
    const { job_id } = await extract({ webhook_url: url, webhook: { url } });
    await rx.waitFor('/plain', 2);
    await settled([job_id]);
    const got = rx.on('/plain');
    assert.equal(got.length, 2);
    for (const r of got) {
      for (const name of ['x-service-signature', 'webhook-signature', 'webhook-id', 'webhook-timestamp']) {
        assert.equal(r.headers[name], undefined, name);
      }
    }
  });

  test('event filtering and saved-webhook subscriptions (active only), job.failed data', async () => {
    const tenant = await svc.newTenant('tenant-subscriber');
    const save = (name: string, path: string, events: string[] | null, is_active = true) =>
      svc.app
        .inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: svc.auth(tenant.apiKey),
          payload: { name, url: `${rx.url}${path}`, events, is_active },
        })
        .then((r) => r.json());
    const done = await save('done-only', '/saved-done', ['job.completed', 'job.failed']);
    await save('inactive', '/saved-off', null, false);
    const named = await save('named', '/saved-named', ['job.started'], false);
    const ok = await extract({ webhook_id: named.id }, '/product', tenant.apiKey);
    const failed = await extract({}, '/gone', tenant.apiKey);
    await rx.waitFor('/saved-done', 2);
    await rx.waitFor('/saved-named', 1);
    await settled([ok.job_id, failed.job_id], tenant.apiKey);
    assert.deepEqual(rx.on('/saved-done').map(event).sort(), ['job.completed', 'job.failed']);
    assert.deepEqual(rx.on('/saved-named').map(event), ['job.started']); // named, though inactive
    assert.equal(rx.on('/saved-off').length, 0);
    const failure = JSON.parse(
      (rx.on('/saved-done').find((r) => event(r) === 'job.failed') as Received).body,
    );
    assert.equal(failure.job_id, failed.job_id);
    assert.equal(failure.data.status, 'failed');
    assert.equal(failure.data.job_type, 'extract');
    assert.equal(typeof failure.data.error_category, 'string');
    assert.equal(typeof failure.data.error_message, 'string');

    const listed = await svc.app.inject({
      url: `/api/v1/webhooks/${done.id}/deliveries?limit=1`,
      headers: svc.auth(tenant.apiKey),
    });
    assert.equal(listed.json().total, 2);
    assert.equal(listed.json().deliveries.length, 1);
    assert.equal(listed.json().deliveries[0].webhook_id, done.id);
    // The job's deliveries are the job owner's only.
    const foreign = await svc.app.inject({ url: `/api/v1/jobs/${ok.job_id}/webhooks`, headers: svc.auth() });
    assert.equal(foreign.statusCode, 404);
  });

  test('fails twice then succeeds: three attempts on the configured schedule, one success', async () => {
    rx.answer('/flaky', [500, 503, 200]);
    const { job_id } = await extract({ webhook: { url: `${rx.url}/flaky`, events: ['job.completed'] } });
    const [d] = await waitDeliveries(job_id, (l) => l[0]?.status === 'success');
    await settled([job_id]);
    const got = rx.on('/flaky');
    assert.equal(got.length, 3);
    assert.equal(new Set(got.map((r) => r.headers['x-service-delivery'])).size, 1);
    assert.equal(new Set(got.map((r) => r.body)).size, 1, 'every attempt sends the same bytes');
    assert.ok((got[1] as Received).at - (got[0] as Received).at >= 300);
    assert.ok((got[2] as Received).at - (got[1] as Received).at >= 600);
    assert.equal(d.attempt_number, 3);
    assert.equal(d.status_code, 200);
    assert.deepEqual(
      d.attempts.map((a: { status_code: number }) => a.status_code),
      [500, 503, 200],
    );
    assert.match(d.attempts[0].error_message, /500/);
  });

  test('a receiver that never answers 2xx: failed after 3 attempts', async () => {
    rx.answer('/down', [500]);
    const { job_id } = await extract({ webhook: { url: `${rx.url}/down`, events: ['job.completed'] } });
    const [d] = await waitDeliveries(job_id, (l) => l[0]?.status === 'failed');
    assert.equal(d.attempt_number, 3);
    assert.equal(d.attempts.length, 3);
    assert.equal(d.delivered_at, null);
    await settled([job_id]);
    assert.equal(rx.on('/down').length, 3);
  });

  test('a refused connection is a failed attempt, retried', async () => {
    const { job_id } = await extract({
      webhook: { url: 'http://127.0.0.1:9/none', events: ['job.started'] },
    });
    const [d] = await waitDeliveries(job_id, (l) => l[0]?.status === 'failed');
    assert.equal(d.attempts.length, 3);
    assert.equal(d.status_code, null);
    assert.ok(d.error_message);
  });

  test('a crawl sends started, progress and completed', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl?wait=true&timeout=60',
      headers: svc.auth(),
      payload: { url: `${site.url}/product`, schema, webhook_url: `${rx.url}/crawl` },
    });
    assert.equal(res.statusCode, 200, res.body);
    await rx.waitFor('/crawl', 3);
    await settled([res.json().job_id]);
    assert.deepEqual(rx.on('/crawl').map(event).sort(), ['job.completed', 'job.progress', 'job.started']);
    const progress = JSON.parse((rx.on('/crawl').find((r) => event(r) === 'job.progress') as Received).body);
    assert.equal(progress.data.job_type, 'crawl');
    assert.equal(typeof progress.data.page_count, 'number');
    assert.equal(typeof progress.data.urls_queued, 'number');
  });

  test('a worker restart while a retry timer is pending: the delivery still happens once', async () => {
    rx.answer('/restart', [500, 200]);
    const { job_id } = await extract({ webhook: { url: `${rx.url}/restart`, events: ['job.completed'] } });
    await waitDeliveries(job_id, (l) => l[0]?.status === 'retrying');
    await svc.stopWorker();
    await new Promise((r) => setTimeout(r, 1000)); // the timer fires while no worker runs
    assert.equal(rx.on('/restart').length, 1);
    await svc.startWorker();
    const [d] = await waitDeliveries(job_id, (l) => l[0]?.status === 'success');
    await settled([job_id]);
    assert.equal(rx.on('/restart').length, 2);
    assert.equal(d.attempts.length, 2);
  });
});
