// Issue 14: every webhook attempt is recorded and listed — a delivery that failed with 500 and succeeded on
// its retry shows both attempts in every delivery listing, and a late or repeated record of an attempt
// (activities run at least once) neither duplicates it nor undoes the delivery's success.
// Jobs run on the real workflows with fake activities (test/support/fake-activities.ts); webhooks are delivered
// by the real activity.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DeliveryDoc } from '../../shared/store/webhook-deliveries.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';

let svc: TestService;
const site: PageTable = pageTable();
let rx: Receiver;

before(async () => {
  svc = await startTestService({
    env: { WEBHOOK_RETRY_DELAYS_MS: '300' },
    activities: fakeActivities({ pages: site.pages }),
  });
  rx = await startReceiver();
  site.route(
    '/product',
    html(
      'Blue Kettle',
      '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>A kettle that boils water quickly and quietly, with ' +
        'an automatic shut-off and a removable filter. Holds 1.7 litres.</p></main>',
    ),
  );
});
after(async () => {
  await rx?.close();
  await svc?.close();
});

const get = async (url: string) => {
  const res = await svc.app.inject({ url: `/api/v1${url}`, headers: svc.auth() });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

/** The one delivery in each listing that names it: both job listings and the saved webhook's. */
async function listings(jobId: string, webhookId: string) {
  return {
    webhooks: (await get(`/jobs/${jobId}/webhooks`)).deliveries,
    'webhook-deliveries': (await get(`/jobs/${jobId}/webhook-deliveries`)).deliveries,
    saved: (await get(`/webhooks/${webhookId}/deliveries`)).deliveries,
  } as Record<string, any[]>;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhook attempts', () => {
  test('500 then 200: every listing shows attempt 1 (500, its error) and attempt 2 (200, success)', async () => {
    rx.answer('/flaky', [500, 200]);
    const saved = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: svc.auth(),
      payload: { name: 'flaky', url: `${rx.url}/flaky`, events: ['job.completed'], is_active: false },
    });
    assert.equal(saved.statusCode, 201, saved.body);
    const webhookId = saved.json().id as string;
    const extract = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { url: `${site.url}/product`, schema: { name: 'string' }, webhook_id: webhookId },
    });
    assert.equal(extract.statusCode, 200, extract.body);
    const jobId = extract.json().job_id as string;

    const lists = await until(
      'the delivery to succeed in every listing',
      () => listings(jobId, webhookId),
      (l) => Object.values(l).every((d) => d.length === 1 && d[0].status === 'success'),
    );
    assert.equal(rx.on('/flaky').length, 2);
    for (const [name, [d]] of Object.entries(lists)) {
      assert.equal(d.attempt_number, 2, name);
      assert.equal(d.max_attempts, 2, name);
      assert.equal(d.status_code, 200, name);
      assert.ok(d.delivered_at, name);
      assert.equal(d.attempts.length, 2, `${name}: ${JSON.stringify(d.attempts)}`);
      const [first, second] = d.attempts;
      assert.equal(first.attempt_number, 1, name);
      assert.equal(first.status_code, 500, name);
      assert.match(first.error_message, /500/, name);
      assert.equal(first.success, false, name);
      assert.equal(second.attempt_number, 2, name);
      assert.equal(second.status_code, 200, name);
      assert.equal(second.error_message, null, name);
      assert.equal(second.success, true, name);
      for (const a of d.attempts) {
        assert.ok(Number.isInteger(a.response_time_ms) && a.response_time_ms >= 0, name);
        assert.ok(Date.parse(a.at) > 0, name);
      }
      assert.ok(Date.parse(second.at) - Date.parse(first.at) >= 300, 'attempt 2 after the retry delay');
    }
    assert.deepEqual(lists['webhook-deliveries'], lists.webhooks);
    assert.deepEqual(lists.saved, lists.webhooks);

    // A late second record of attempt 1 (an activity that ran twice) replaces that attempt's record only.
    const deliveryId = lists.webhooks?.[0].id as string;
    await svc.deps.webhooks.recordAttempt(deliveryId, {
      attempt_number: 1,
      status_code: 502,
      response_time_ms: 7,
      error_message: 'the receiver answered HTTP 502',
      at: new Date().toISOString(),
    });
    const [after] = (await get(`/jobs/${jobId}/webhooks`)).deliveries;
    assert.equal(after.status, 'success', 'a late record does not undo the success');
    assert.equal(after.attempt_number, 2);
    assert.equal(after.status_code, 200);
    assert.deepEqual(
      after.attempts.map((a: { attempt_number: number; status_code: number }) => [
        a.attempt_number,
        a.status_code,
      ]),
      [
        [1, 502],
        [2, 200],
      ],
    );
  });

  test('a delivery recorded by the earlier release (attempts array, stored status) lists the same way', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const legacy: DeliveryDoc = {
      _id: 'dlv_legacy_1',
      id: 'dlv_legacy_1',
      tenant_id: svc.tenantId,
      job_id: 'job_legacy_attempts',
      webhook_id: null,
      destination: 0,
      url: `${rx.url}/old`,
      event_type: 'job.completed',
      status: 'success',
      attempt_number: 2,
      max_attempts: 3,
      status_code: 200,
      response_time_ms: 5,
      created_at: at,
      delivered_at: '2026-01-01T00:01:00.005Z',
      error_message: null,
      body: '{}',
      attempts: [
        { attempt_number: 1, status_code: 500, response_time_ms: 4, error_message: 'HTTP 500', at },
        { attempt_number: 2, status_code: 200, response_time_ms: 5, error_message: null, at },
      ],
    };
    await svc.deps.webhooks.createDelivery(legacy);
    const { deliveries } = await svc.deps.webhooks.listDeliveries('job:job_legacy_attempts');
    assert.equal(deliveries.length, 1);
    const [d] = deliveries;
    assert.equal(d?.status, 'success');
    assert.equal(d?.delivered_at, legacy.delivered_at);
    assert.deepEqual(
      d?.attempts.map((a) => [a.attempt_number, a.status_code, a.success]),
      [
        [1, 500, false],
        [2, 200, true],
      ],
    );
  });
});
