// POST /api/v1/webhooks/{id}/test: one signed webhook.test delivery sent now, as the worker sends deliveries
// (signatures the TypeScript client verifies, custom headers, address policy), its outcome as the answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../clients/typescript/src/index.js';
import { type InfraHandle, startTestService, type TestService, useInfra } from '../support/service.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';

let infra: InfraHandle;
let svc: TestService;
let receiver: Receiver;
const SECRET = 'test-delivery-secret-123';
const HEADER_VALUE = 'Bearer receiver-credential-456';

before(async () => {
  infra = await useInfra();
  svc = await startTestService({ worker: false, infra });
  receiver = await startReceiver();
});
after(async () => {
  await receiver?.close();
  await svc?.close();
  await infra?.stop();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object, key?: string, extra = {}) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: { ...svc.auth(key), ...extra }, payload });

async function saveHook(name: string, path: string, over: object = {}): Promise<string> {
  const res = await call('POST', '/webhooks', {
    name,
    url: `${receiver.url}${path}`,
    secret: SECRET,
    headers: [{ name: 'Authorization', value: HEADER_VALUE }],
    events: ['job.completed'],
    is_active: false,
    ...over,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

describe('POST /api/v1/webhooks/{id}/test', () => {
  test('sends one signed webhook.test now; the client verifies it; neither secret nor header value is echoed', async () => {
    const id = await saveHook('signed', '/signed');
    const res = await call('POST', `/webhooks/${id}/test`);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.headers['x-ratelimit-limit'], 'rate-limited like every API route');
    const outcome = res.json();
    assert.equal(outcome.success, true);
    assert.equal(outcome.status_code, 200);
    assert.equal(outcome.error_message, null);
    assert.equal(outcome.signed, true);
    assert.equal(outcome.event_type, 'webhook.test');
    assert.equal(outcome.webhook_id, id);
    assert.ok(Number.isInteger(outcome.response_time_ms) && outcome.response_time_ms >= 0);
    assert.ok(!res.body.includes(SECRET) && !res.body.includes(HEADER_VALUE));

    const [got] = receiver.on('/signed');
    assert.equal(receiver.on('/signed').length, 1, 'sent once (the webhook is inactive: a test still goes)');
    assert.equal(got!.headers['x-service-event'], 'webhook.test');
    assert.equal(got!.headers['x-service-delivery'], outcome.delivery_id);
    assert.equal(got!.headers.authorization, HEADER_VALUE, 'custom headers are sent as on deliveries');
    assert.equal(await verifyWebhook(got!.body, got!.headers as Record<string, string>, SECRET), true);
    assert.equal(await verifyWebhook(got!.body, got!.headers as Record<string, string>, 'other'), false);
    const { 'webhook-id': _, 'webhook-timestamp': __, 'webhook-signature': ___, ...legacy } = got!.headers;
    assert.equal(
      await verifyWebhook(got!.body, legacy as Record<string, string>, SECRET, {
        allowLegacySignature: true,
      }),
      true,
      'the legacy X-Service-Signature is there too',
    );
    const body = JSON.parse(got!.body);
    assert.equal(body.event, 'webhook.test');
    assert.equal(body.job_id, null);
    assert.equal(body.data.webhook_id, id);
    assert.equal(Date.parse(body.timestamp), Date.parse(outcome.at));

    const recorded = await call('GET', `/webhooks/${id}/deliveries`);
    assert.equal(recorded.json().total, 0, 'a test is not recorded among the deliveries');
  });

  test("a receiver's failure is the outcome, not an error; unsigned webhooks send no signature", async () => {
    receiver.answer('/down', [503]);
    const id = await saveHook('down', '/down', { secret: '' });
    const res = await call('POST', `/webhooks/${id}/test`);
    assert.equal(res.statusCode, 200, res.body);
    const outcome = res.json();
    assert.equal(outcome.success, false);
    assert.equal(outcome.status_code, 503);
    assert.match(outcome.error_message, /HTTP 503/);
    assert.equal(outcome.signed, false);
    const [got] = receiver.on('/down');
    assert.equal(got!.headers['webhook-signature'], undefined);
    assert.equal(got!.headers['x-service-signature'], undefined);
  });

  test('another tenant: 404 and nothing sent; a key that may not manage settings: 403', async () => {
    const id = await saveHook('mine', '/mine');
    const other = await svc.newTenant('tenant-other');
    const res = await call('POST', `/webhooks/${id}/test`, undefined, other.apiKey);
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal((await call('POST', '/webhooks/wh_nope/test')).statusCode, 404);
    const reader = (await call('POST', '/keys', { name: 'reader', scopes: ['read'] })).json();
    const refused = await call('POST', `/webhooks/${id}/test`, undefined, reader.key);
    assert.equal(refused.statusCode, 403, refused.body);
    assert.match(refused.json().detail, /scope full/);
    assert.equal(receiver.on('/mine').length, 0);
  });

  test('API version refyne: the same outcome, problems in the product shape', async () => {
    const id = await saveHook('refyne', '/refyne');
    const refyne = { 'x-api-version': 'refyne' };
    const res = await call('POST', `/webhooks/${id}/test`, undefined, undefined, refyne);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-api-version'], 'refyne');
    assert.equal(res.json().success, true);
    const missing = await call('POST', '/webhooks/wh_nope/test', undefined, undefined, refyne);
    assert.equal(missing.statusCode, 404);
    assert.match(missing.json().instance, /^http:\/\/.+\/api\/v1\/webhooks\/wh_nope\/test$/);
  });

  test('the address policy of deliveries: metadata always refused, private unless the operator allows it', async () => {
    const metadata = await svc.deps.webhooks.create(svc.tenantId, {
      name: 'metadata',
      url: 'http://169.254.169.254/latest/meta-data/',
      is_active: true,
    });
    assert.ok(metadata);
    const refused = (await call('POST', `/webhooks/${metadata._id}/test`)).json();
    assert.equal(refused.success, false);
    assert.equal(refused.status_code, null);
    assert.match(refused.error_message, /not allowed|refused|private|metadata/i);

    const strict = await startTestService({
      worker: false,
      infra,
      env: { ALLOW_PRIVATE_ADDRESSES: 'false' },
    });
    try {
      // Saved while private addresses were allowed (the policy is applied again when sending).
      const doc = await strict.deps.webhooks.create(strict.tenantId, {
        name: 'loopback',
        url: `${receiver.url}/private`,
        is_active: true,
      });
      assert.ok(doc);
      const res = await strict.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${doc._id}/test`,
        headers: strict.auth(),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().success, false);
      assert.equal(res.json().status_code, null);
      assert.match(res.json().error_message, /not allowed|refused|private/i);
      assert.equal(receiver.on('/private').length, 0, 'nothing reached the private address');
    } finally {
      await strict.close();
    }
  });
});
