// A saved webhook's stored credentials (masked header values, the secret) stay with the origin they were
// given for: a PUT moving the webhook elsewhere must give them again. The client's verifier does not let a
// captured delivery through by its body-only signature. Connection-control header names are refused up front
// instead of failing every delivery.
// Jobs run on the real workflows with fake activities (test/support/fake-activities.ts); webhooks are delivered
// by the real activity.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { verifyWebhook } from '../../clients/typescript/src/index.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';

const AUTH = 'Bearer stored-credential-42';
const SECRET = 'stored-signing-secret';

let svc: TestService;
const site: PageTable = pageTable();
/** Two receivers: two origins (their ports differ). */
let home: Receiver;
let elsewhere: Receiver;

before(async () => {
  svc = await startTestService({ activities: fakeActivities({ pages: site.pages }) });
  home = await startReceiver();
  elsewhere = await startReceiver();
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
  await elsewhere?.close();
  await home?.close();
  await svc?.close();
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(), payload });

function refusedAt(res: LightMyRequestResponse, locations: string[]) {
  assert.equal(res.statusCode, 422, res.body);
  assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  const found = (res.json().errors as { location: string }[]).map((e) => e.location);
  assert.deepEqual(found.sort(), [...locations].sort(), res.body);
}

/** A saved webhook of the default tenant with a secret and an Authorization header, and its GET form. */
async function savedWebhook(name: string, path: string) {
  const created = await call('POST', '/webhooks', {
    name,
    url: `${home.url}${path}`,
    secret: SECRET,
    events: ['job.completed'],
    headers: [{ name: 'Authorization', value: AUTH }],
    is_active: false,
  });
  assert.equal(created.statusCode, 201, created.body);
  const { id, has_secret, created_at, updated_at, ...resource } = created.json();
  return { id: id as string, resource: resource as Record<string, unknown> };
}

/** Runs an extract delivering to the saved webhook; the job's deliveries. */
async function deliverTo(webhookId: string) {
  const res = await call('POST', '/extract', {
    url: `${site.url}/product`,
    schema: { name: 'string' },
    webhook_id: webhookId,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().job_id as string;
}

describe('webhook credentials follow the origin', () => {
  test('a PUT to another origin keeping masked headers or the stored secret is refused', async () => {
    const { id, resource } = await savedWebhook('moving', '/hook');
    const away = `${elsewhere.url}/steal`;

    // Masked header sent back and secret left out: both named.
    refusedAt(await call('PUT', `/webhooks/${id}`, { ...resource, url: away }), [
      'body.headers.Authorization',
      'body.secret',
    ]);
    // Headers left out (they would be kept) with a new secret.
    const { headers, ...withoutHeaders } = resource;
    refusedAt(await call('PUT', `/webhooks/${id}`, { ...withoutHeaders, url: away, secret: 'new' }), [
      'body.headers',
    ]);
    // The header given again but the secret left out.
    const fresh = [{ name: 'Authorization', value: 'Bearer new' }];
    refusedAt(await call('PUT', `/webhooks/${id}`, { ...resource, url: away, headers: fresh }), [
      'body.secret',
    ]);
    // Another port of the same host is another origin.
    const otherPort = `http://127.0.0.1:${Number(new URL(home.url).port) + 1}/hook`;
    refusedAt(await call('PUT', `/webhooks/${id}`, { ...resource, url: otherPort }), [
      'body.headers.Authorization',
      'body.secret',
    ]);

    // Nothing moved: a job still delivers to the stored URL only, never with the credential to the new one.
    const stored = (await call('GET', `/webhooks/${id}`)).json();
    assert.equal(stored.url, `${home.url}/hook`);
    const jobId = await deliverTo(id);
    const [delivery] = await home.waitFor('/hook', 1);
    assert.equal(delivery?.headers.authorization, AUTH);
    const deliveries = (await call('GET', `/jobs/${jobId}/webhooks`)).json().deliveries as { url: string }[];
    assert.deepEqual(
      deliveries.map((d) => d.url),
      [`${home.url}/hook`],
    );
    assert.equal(elsewhere.on('/steal').length, 0);

    // Everything given again: the move is allowed and the new values are sent.
    const moved = await call('PUT', `/webhooks/${id}`, {
      ...resource,
      url: away,
      headers: fresh,
      secret: 'new-secret',
    });
    assert.equal(moved.statusCode, 200, moved.body);
    await deliverTo(id);
    const [stolen] = await elsewhere.waitFor('/steal', 1);
    assert.equal(stolen?.headers.authorization, 'Bearer new');
    assert.equal(await verifyWebhook(stolen?.body ?? '', stolen?.headers ?? {}, 'new-secret'), true);
    assert.equal(await verifyWebhook(stolen?.body ?? '', stolen?.headers ?? {}, SECRET), false);
  });

  test('a PUT on the same origin keeps the masked header value and the omitted secret', async () => {
    const { id, resource } = await savedWebhook('staying', '/before');
    const moved = await call('PUT', `/webhooks/${id}`, { ...resource, url: `${home.url}/after` });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().has_secret, true);
    await deliverTo(id);
    const [delivery] = await home.waitFor('/after', 1);
    assert.equal(delivery?.headers.authorization, AUTH, 'the stored value is sent');
    assert.equal(await verifyWebhook(delivery?.body ?? '', delivery?.headers ?? {}, SECRET), true);
  });
});

describe("the client's verifier and a captured delivery", () => {
  test('stripped of the Standard Webhooks headers it is refused unless the legacy form is asked for', async () => {
    const { id } = await savedWebhook('captured', '/captured');
    await deliverTo(id);
    const [delivery] = await home.waitFor('/captured', 1);
    assert.ok(delivery);
    const { body, headers } = delivery;
    assert.equal(await verifyWebhook(body, headers, SECRET), true);
    const stripped = Object.fromEntries(
      Object.entries(headers).filter(([name]) => !name.startsWith('webhook-')),
    );
    assert.ok(stripped['x-service-signature'], 'the legacy signature is still there');
    assert.equal(await verifyWebhook(body, stripped, SECRET), false);
    assert.equal(await verifyWebhook(body, stripped, SECRET, { allowLegacySignature: true }), true);
    // Replayed a day later: refused in both forms.
    const later = { now: () => Date.now() + 86_400_000 };
    assert.equal(await verifyWebhook(body, headers, SECRET, later), false);
    assert.equal(
      await verifyWebhook(body, stripped, SECRET, { ...later, allowLegacySignature: true }),
      false,
    );
  });
});

describe('connection-control header names', () => {
  const RESERVED = ['Upgrade', 'Expect', 'TE', 'Trailer', 'Keep-Alive', 'Proxy-Authorization', 'Connection'];

  test('are refused in saved webhooks (POST and PUT) and per-job webhooks, naming the header', async () => {
    const { id, resource } = await savedWebhook('reserved', '/reserved');
    for (const name of RESERVED) {
      const headers = [{ name, value: 'x' }];
      const created = await call('POST', '/webhooks', { ...resource, name: `r-${name}`, headers });
      refusedAt(created, ['body.headers.0.name']);
      assert.ok(created.json().errors[0].message.includes(name), created.body);
      refusedAt(await call('PUT', `/webhooks/${id}`, { ...resource, headers }), ['body.headers.0.name']);
      const webhook = { url: `${home.url}/inline`, headers };
      const job = { url: `${site.url}/product`, schema: { name: 'string' }, webhook };
      refusedAt(await call('POST', '/extract', job), ['body.webhook.headers.0.name']);
      refusedAt(await call('POST', '/crawl', job), ['body.webhook.headers.0.name']);
    }
    assert.equal(home.on('/inline').length, 0);
  });

  test('one stored before the rule is left out of deliveries, which then succeed', async () => {
    const now = new Date().toISOString();
    await svc.mongo.db.collection('webhooks').insertOne({
      _id: 'wh_reserved_before' as never,
      tenant_id: svc.tenantId,
      name: 'reserved-before',
      url: `${home.url}/old-reserved`,
      sealed_secret: null,
      events: ['job.completed'],
      headers: [
        { name: 'Upgrade', value: 'websocket' },
        { name: 'X-Kept', value: 'kept' },
      ],
      is_active: false,
      created_at: now,
      updated_at: now,
    });
    await deliverTo('wh_reserved_before');
    const [delivery] = await home.waitFor('/old-reserved', 1, 20_000);
    assert.equal(delivery?.headers.upgrade, undefined);
    assert.equal(delivery?.headers['x-kept'], 'kept');
  });
});
