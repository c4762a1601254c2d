import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => svc?.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, key?: string) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(key), payload });

const hook = (over: object = {}) => ({
  name: 'orders',
  url: 'https://hooks.example.com/in',
  secret: 's3cret',
  events: ['job.completed'],
  headers: [{ name: 'X-Team', value: 'data' }],
  is_active: true,
  ...over,
});

describe('/api/v1/webhooks', () => {
  test('create, read, list, update, delete; the secret is write-only', async () => {
    const created = await call('POST', '/webhooks', hook());
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.id, /^wh_/);
    assert.equal(body.has_secret, true);
    assert.equal(body.secret, undefined);
    assert.deepEqual(body.headers, [{ name: 'X-Team', value: '****' }], 'header values are write-only');
    assert.ok(!created.body.includes('s3cret'));

    const got = await call('GET', `/webhooks/${body.id}`);
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.json(), body);
    const list = (await call('GET', '/webhooks')).json();
    assert.deepEqual(
      list.webhooks.map((w: { id: string }) => w.id),
      [body.id],
    );

    // A missing secret keeps the stored one; is_active toggles.
    const off = await call('PUT', `/webhooks/${body.id}`, {
      name: 'orders',
      url: 'https://hooks.example.com/v2',
      is_active: false,
    });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().is_active, false);
    assert.equal(off.json().has_secret, true);
    assert.equal(off.json().url, 'https://hooks.example.com/v2');
    assert.deepEqual(off.json().events, ['job.completed']);
    // An empty secret disables signing.
    const unsigned = await call('PUT', `/webhooks/${body.id}`, { ...hook(), secret: '' });
    assert.equal(unsigned.json().has_secret, false);
    assert.equal(unsigned.json().is_active, true);

    const deliveries = await call('GET', `/webhooks/${body.id}/deliveries?limit=5&offset=0`);
    assert.equal(deliveries.statusCode, 200);
    assert.deepEqual(deliveries.json(), { deliveries: [], total: 0 });

    assert.equal((await call('DELETE', `/webhooks/${body.id}`)).statusCode, 204);
    assert.equal((await call('GET', `/webhooks/${body.id}`)).statusCode, 404);
    assert.equal((await call('DELETE', `/webhooks/${body.id}`)).statusCode, 404);
  });

  test('a duplicate name is a 409, on create and on rename', async () => {
    const a = await call('POST', '/webhooks', hook({ name: 'dup-a' }));
    const b = await call('POST', '/webhooks', hook({ name: 'dup-b' }));
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    const again = await call('POST', '/webhooks', hook({ name: 'dup-a' }));
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json().type, '/problems/conflict');
    const rename = await call('PUT', `/webhooks/${b.json().id}`, hook({ name: 'dup-a' }));
    assert.equal(rename.statusCode, 409);
    // Another tenant may use the same name.
    const other = await svc.newTenant('tenant-dup');
    assert.equal((await call('POST', '/webhooks', hook({ name: 'dup-a' }), other.apiKey)).statusCode, 201);
  });

  test('field rules: name 1..64, secret <= 256, <= 10 headers, known events, http(s) URL', async () => {
    const bad: [object, string][] = [
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(65) }, 'body.name'],
      [{ secret: 'x'.repeat(257) }, 'body.secret'],
      [{ headers: Array.from({ length: 11 }, (_, i) => ({ name: `X-H${i}`, value: 'v' })) }, 'body.headers'],
      [{ events: ['job.exploded'] }, 'body.events.0'],
      [{ url: 'ftp://example.com/x' }, 'body.url'],
      [{ headers: [{ name: 'X-Service-Signature', value: 'forged' }] }, 'body.headers.0.name'],
    ];
    for (const [over, location] of bad) {
      const res = await call('POST', '/webhooks', hook({ name: `bad-${location}`, ...over }));
      assert.equal(res.statusCode, 422, `${JSON.stringify(over)}: ${res.body}`);
      assert.ok(
        res.json().errors.some((e: { location: string }) => e.location === location),
        `${location} in ${res.body}`,
      );
    }
    const missing = await call('POST', '/webhooks', { name: 'no-active', url: 'https://example.com/' });
    assert.equal(missing.statusCode, 422);
    // events null, [] and ["*"] are all accepted (all events).
    for (const [i, events] of [null, [], ['*']].entries()) {
      assert.equal((await call('POST', '/webhooks', hook({ name: `all-${i}`, events }))).statusCode, 201);
    }
  });

  test('a private address is refused unless the operator allows it', async () => {
    const strict = await startTestService({ worker: false, env: { ALLOW_PRIVATE_ADDRESSES: 'false' } });
    try {
      const res = await strict.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: strict.auth(),
        payload: hook({ url: 'http://127.0.0.1:9/in' }),
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().errors[0].location, 'body.url');
    } finally {
      await strict.close();
    }
  });

  test("other tenants' webhooks are 404, and unknown to webhook_id (422)", async () => {
    const mine = (await call('POST', '/webhooks', hook({ name: 'private-one' }))).json();
    const other = await svc.newTenant('tenant-other');
    for (const [method, path] of [
      ['GET', `/webhooks/${mine.id}`],
      ['PUT', `/webhooks/${mine.id}`],
      ['DELETE', `/webhooks/${mine.id}`],
      ['GET', `/webhooks/${mine.id}/deliveries`],
    ] as const) {
      const res = await call(method, path, method === 'PUT' ? hook() : undefined, other.apiKey);
      assert.equal(res.statusCode, 404, `${method} ${path}`);
    }
    const list = (await call('GET', '/webhooks', undefined, other.apiKey)).json();
    assert.ok(!list.webhooks.some((w: { id: string }) => w.id === mine.id));
    for (const path of ['/extract', '/crawl']) {
      const res = await call(
        'POST',
        path,
        { url: 'https://example.com/', schema: 'title', webhook_id: mine.id },
        other.apiKey,
      );
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().errors[0].location, 'body.webhook_id');
    }
    const jobHooks = await call('GET', '/jobs/job_nope/webhooks');
    assert.equal(jobHooks.statusCode, 404);
  });
});
