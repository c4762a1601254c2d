import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COLLECTIONS } from '../../shared/store/mongo.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService({
    worker: false,
    env: { BODY_LIMIT_BYTES: '4096', RATE_LIMIT_PER_MINUTE: '1000' },
  });
});
after(async () => svc?.close());

const PROBLEM = 'application/problem+json; charset=utf-8';

function assertProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): Record<string, any> },
  status: number,
) {
  assert.equal(res.statusCode, status);
  assert.equal(res.headers['content-type'], PROBLEM);
  const p = res.json();
  for (const field of ['type', 'title', 'detail', 'instance']) assert.equal(typeof p[field], 'string', field);
  assert.equal(p.status, status);
  assert.ok(Array.isArray(p.errors));
  return p;
}

describe('authentication', () => {
  test('a missing key is 401 naming the header', async () => {
    const res = await svc.app.inject({ url: '/api/v1/jobs' });
    const p = assertProblem(res, 401);
    assert.equal(p.errors[0].location, 'header.authorization');
  });
  test('a wrong key and a malformed header are 401', async () => {
    assertProblem(await svc.app.inject({ url: '/api/v1/jobs', headers: svc.auth('sk_not_a_real_key') }), 401);
    assertProblem(await svc.app.inject({ url: '/api/v1/jobs', headers: { authorization: svc.apiKey } }), 401);
  });
  test('health, readiness and the OpenAPI document need no key', async () => {
    assert.equal((await svc.app.inject({ url: '/healthz' })).statusCode, 200);
    const ready = await svc.app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.deepEqual(ready.json().checks, { temporal: 'ok', mongodb: 'ok' });
    assert.equal((await svc.app.inject({ url: '/api/v1/openapi.json' })).statusCode, 200);
  });
});

describe('errors', () => {
  test('an unknown route is a problem+json 404', async () => {
    const p = assertProblem(await svc.app.inject({ url: '/api/v1/nothing-here', headers: svc.auth() }), 404);
    assert.equal(p.instance, '/api/v1/nothing-here');
    assertProblem(await svc.app.inject({ url: '/nowhere' }), 404);
  });
  test('a body over the limit is 413', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: { ...svc.auth(), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'https://example.com', schema: 'x'.repeat(10_000) }),
    });
    assertProblem(res, 413);
  });
  test('malformed JSON is a 400 problem', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: { ...svc.auth(), 'content-type': 'application/json' },
      payload: '{"url": ',
    });
    assertProblem(res, 400);
  });
  test('an empty body with a JSON content type is no body: a route that needs one says it is missing', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: { ...svc.auth(), 'content-type': 'application/json' },
      payload: '',
    });
    const p = assertProblem(res, 422);
    assert.equal(p.errors[0].location, 'body');
  });
  test('a bad query parameter is a 422 naming query.<name>', async () => {
    const p = assertProblem(
      await svc.app.inject({ url: '/api/v1/jobs?limit=500', headers: svc.auth() }),
      422,
    );
    assert.equal(p.errors[0].location, 'query.limit');
    assert.equal(p.errors[0].value, '500');
  });
  test('problem types are documented at their URI', async () => {
    const p = assertProblem(await svc.app.inject({ url: '/api/v1/jobs' }), 401);
    const doc = await svc.app.inject({ url: p.type });
    assert.equal(doc.statusCode, 200);
    assert.equal(doc.json().status, 401);
  });
});

describe('rate limit', () => {
  test("a tenant over its per-minute limit gets 429 with Retry-After; other tenants don't", async () => {
    const limited = await svc.newTenant('limited');
    await svc.deps.tenants.setRateLimit(limited.tenantId, 3);
    const codes: number[] = [];
    let last: Awaited<ReturnType<typeof svc.app.inject>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await svc.app.inject({ url: '/api/v1/jobs', headers: svc.auth(limited.apiKey) });
      codes.push(last.statusCode);
    }
    assert.deepEqual(codes, [200, 200, 200, 429, 429]);
    assertProblem(last!, 429);
    assert.ok(Number(last!.headers['retry-after']) > 0, 'Retry-After is set');
    assert.equal((await svc.app.inject({ url: '/api/v1/jobs', headers: svc.auth() })).statusCode, 200);
  });
});

describe('API keys', () => {
  test('create, use, list and delete a key; the key itself is shown once and stored as a hash', async () => {
    const created = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: svc.auth(),
      payload: { name: 'ci' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id, key, prefix } = created.json();
    assert.match(key, /^sk_[A-Za-z0-9_-]{30,}$/);
    assert.ok(key.startsWith(prefix));
    assert.equal((await svc.app.inject({ url: '/api/v1/jobs', headers: svc.auth(key) })).statusCode, 200);

    const list = (await svc.app.inject({ url: '/api/v1/keys', headers: svc.auth() })).json();
    assert.ok(list.keys.some((k: { id: string }) => k.id === id));
    assert.ok(!JSON.stringify(list).includes(key), 'the list never shows a key');
    const stored = await svc.mongo.db.collection(COLLECTIONS.apiKeys).find().toArray();
    assert.ok(!JSON.stringify(stored).includes(key), 'only the hash is stored');

    const other = await svc.newTenant('other-keys');
    assertProblem(
      await svc.app.inject({ method: 'DELETE', url: `/api/v1/keys/${id}`, headers: svc.auth(other.apiKey) }),
      404,
    );
    // A bodiless DELETE with a JSON content type (as many clients send it) is a DELETE.
    const deleted = await svc.app.inject({
      method: 'DELETE',
      url: `/api/v1/keys/${id}`,
      headers: { ...svc.auth(), 'content-type': 'application/json' },
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assertProblem(await svc.app.inject({ url: '/api/v1/jobs', headers: svc.auth(key) }), 401);
  });
});

describe('jobs', () => {
  test("another tenant's job is 404, and lists are per tenant", async () => {
    const jobId = 'job_isolation_test';
    await svc.deps.events.append([
      {
        type: 'job.created',
        job_id: jobId,
        tenant_id: svc.tenantId,
        seq: 0,
        event_id: 'e0',
        at: new Date().toISOString(),
        data: {
          job_type: 'extract',
          url: 'https://example.com',
          capture_debug: false,
          workflow_id: `extract-${jobId}`,
          idempotency_key: null,
        },
      },
    ]);
    const mine = await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() });
    assert.equal(mine.statusCode, 200);
    assert.equal(mine.json().status, 'pending');
    const other = await svc.newTenant('other-jobs');
    assertProblem(
      await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth(other.apiKey) }),
      404,
    );
    const theirs = (await svc.app.inject({ url: '/api/v1/jobs', headers: svc.auth(other.apiKey) })).json();
    assert.deepEqual(theirs.jobs, []);
  });
});

describe('OpenAPI', () => {
  test('is 3.1, generated from the zod schemas, with bearer auth and problem+json errors', async () => {
    const doc = (await svc.app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' });
    const extract = doc.paths['/api/v1/extract'].post;
    assert.ok(extract.requestBody.content['application/json'].schema);
    assert.ok(extract.responses['200'].content['application/json']);
    assert.ok(extract.responses['422'].content['application/problem+json']);
    assert.ok(doc.components.schemas.ExtractRequest, 'named schemas become components');
    assert.ok(doc.paths['/api/v1/jobs/{id}'].get);
    assert.ok(doc.paths['/api/v1/keys'].post);
  });
  test('the docs page is served', async () => {
    const res = await svc.app.inject({ url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /swagger/i);
  });
});
