// Issue 14: webhook custom header values (often credentials) are sealed at rest, masked in every response,
// absent from workflow history and logs — and the receiver still gets the real value. Headers stored in
// clear by the earlier release keep working.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type Receiver, startReceiver } from '../../webhooks/receiver.js';

const SECRET = 'hook-secret-123';
const AUTH = `Bearer ${SECRET}`;

let svc: TestService;
let site: FixtureSite;
let rx: Receiver;
let logs = '';

before(async () => {
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    logs += chunk.toString('utf8');
  });
  svc = await startTestService({ env: { LOG_LEVEL: 'debug' }, logStream });
  site = await startFixtureSite();
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
  await site?.close();
  await svc?.close();
});

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(), payload });

/** Every string of a value, with byte arrays (Temporal payloads) decoded as UTF-8. */
function textOf(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(textOf).join('\n');
  return String(value);
}

describe('webhook header values', () => {
  test('saved and inline: masked in responses, sealed at rest, not in history or logs, sent for real', async () => {
    const created = await call('POST', '/webhooks', {
      name: 'with-auth',
      url: `${rx.url}/saved`,
      events: ['job.completed'],
      headers: [{ name: 'Authorization', value: AUTH }],
      is_active: true,
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json().headers, [{ name: 'Authorization', value: '****' }]);
    assert.ok(!created.body.includes(SECRET));
    const id = created.json().id as string;
    for (const url of [`/webhooks/${id}`, '/webhooks']) {
      const res = await call('GET', url);
      assert.equal(res.statusCode, 200);
      assert.ok(res.body.includes('"value":"****"'), res.body);
      assert.ok(!res.body.includes(SECRET), url);
    }
    // GET, edit, PUT back: the masked value keeps the stored one.
    const {
      id: _,
      has_secret,
      created_at,
      updated_at,
      ...resource
    } = (await call('GET', `/webhooks/${id}`)).json();
    const renamed = await call('PUT', `/webhooks/${id}`, { ...resource, name: 'with-auth-2' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(renamed.json().headers, [{ name: 'Authorization', value: '****' }]);

    const extract = await call('POST', '/extract', {
      url: `${site.url}/product`,
      schema: { name: 'string' },
      webhook: {
        url: `${rx.url}/inline`,
        events: ['job.completed'],
        headers: [{ name: 'Authorization', value: AUTH }],
      },
    });
    assert.equal(extract.statusCode, 200, extract.body);
    assert.ok(!extract.body.includes(SECRET));
    const jobId = extract.json().job_id as string;

    const [saved] = await rx.waitFor('/saved', 1);
    const [inline] = await rx.waitFor('/inline', 1);
    assert.equal(saved?.headers.authorization, AUTH, 'the saved webhook sends the real value');
    assert.equal(inline?.headers.authorization, AUTH, 'the inline webhook sends the real value');

    for (const url of [
      `/jobs/${jobId}/webhooks`,
      `/jobs/${jobId}/webhook-deliveries`,
      `/webhooks/${id}/deliveries`,
    ]) {
      const res = await call('GET', url);
      assert.equal(res.statusCode, 200);
      assert.ok(!res.body.includes(SECRET), url);
    }
    for (const url of [`/jobs/${jobId}`, `/jobs/${jobId}/results`]) {
      assert.ok(!(await call('GET', url)).body.includes(SECRET), url);
    }

    // At rest: no document of the service's database holds the value in clear.
    const db = svc.mongo.db;
    for (const { name } of await db.listCollections().toArray()) {
      const docs = await db.collection(name).find().toArray();
      const hit = docs.find((d) => JSON.stringify(d).includes(SECRET));
      assert.equal(hit, undefined, `${name} holds the header value: ${JSON.stringify(hit)}`);
    }

    // Workflow history: the job's and its delivery workflows' (payloads decoded).
    const client = svc.deps.temporal.workflow;
    const workflowIds = [
      `extract-${jobId}`,
      `webhook-${jobId}-job.completed-0-0`,
      `webhook-${jobId}-job.completed-0-1`,
    ];
    let events = 0;
    for (const workflowId of workflowIds) {
      const history = await client.getHandle(workflowId).fetchHistory();
      events += history.events?.length ?? 0;
      const text = textOf(history);
      assert.ok(text.includes(jobId), `${workflowId}: the payloads were decoded`);
      assert.ok(!text.includes(SECRET), `${workflowId} history holds the header value`);
    }
    assert.ok(events > 10);
    assert.ok(logs.length > 0, 'the logs were captured');
    assert.ok(!logs.includes(SECRET), 'the logs hold the header value');
  });

  test('headers stored in clear by the earlier release are masked, sent, and sealed on the next update', async () => {
    const now = new Date().toISOString();
    const db = svc.mongo.db;
    await db.collection('webhooks').insertOne({
      _id: 'wh_legacy_headers' as never,
      tenant_id: svc.tenantId,
      name: 'legacy',
      url: `${rx.url}/legacy`,
      sealed_secret: null,
      events: ['job.completed'],
      headers: [{ name: 'X-Legacy', value: 'legacy-value-1' }],
      is_active: false,
      created_at: now,
      updated_at: now,
    });
    const got = await call('GET', '/webhooks/wh_legacy_headers');
    assert.deepEqual(got.json().headers, [{ name: 'X-Legacy', value: '****' }]);
    const extract = await call('POST', '/extract', {
      url: `${site.url}/product`,
      schema: { name: 'string' },
      webhook_id: 'wh_legacy_headers',
    });
    assert.equal(extract.statusCode, 200, extract.body);
    const [legacy] = await rx.waitFor('/legacy', 1);
    assert.equal(legacy?.headers['x-legacy'], 'legacy-value-1');

    // A job's destinations stored in clear are still opened for delivery.
    await db.collection('job_webhooks').insertOne({
      _id: 'job_legacy_destinations' as never,
      tenant_id: svc.tenantId,
      destinations: [
        {
          webhook_id: null,
          url: `${rx.url}/old`,
          sealed_secret: null,
          headers: [{ name: 'X-Old', value: 'old-value' }],
          events: ['job.completed'],
        },
      ],
    });
    const destination = await svc.deps.webhooks.jobDestination('job_legacy_destinations', 0);
    assert.deepEqual(destination?.headers, [{ name: 'X-Old', value: 'old-value' }]);

    const updated = await call('PUT', '/webhooks/wh_legacy_headers', {
      name: 'legacy',
      url: `${rx.url}/legacy`,
      is_active: false,
    });
    assert.equal(updated.statusCode, 200, updated.body);
    const stored = await db.collection('webhooks').findOne({ _id: 'wh_legacy_headers' as never });
    assert.ok(!JSON.stringify(stored).includes('legacy-value-1'), 'sealed on update');
    const doc = await svc.deps.webhooks.get(svc.tenantId, 'wh_legacy_headers');
    assert.deepEqual(svc.deps.webhooks.openHeaders(doc?.headers ?? null), [
      { name: 'X-Legacy', value: 'legacy-value-1' },
    ]);
  });
});
