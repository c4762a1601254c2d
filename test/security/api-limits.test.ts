// The API's own bounds against a hostile caller: JSON nested thousands deep, /metrics on a public address
// without a token, guessed keys, and path spellings with `;` parameters. Against the real stack (apps built
// from the test service's stores with the setting under test changed).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import type { Config } from '../../shared/config.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const apps: FastifyInstance[] = [];

before(async () => {
  svc = await startTestService({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '1000' } });
});
after(async () => {
  for (const app of apps) await app.close();
  await svc?.close();
});

/** Another app on the same stores and database, with some settings changed. */
async function appWith(config: Partial<Config>): Promise<FastifyInstance> {
  const app = await buildApp({ ...svc.deps, config: { ...svc.config, ...config } });
  apps.push(app);
  return app;
}

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

function assertProblem(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
) {
  assert.equal(res.statusCode, status, res.body.slice(0, 300));
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(JSON.parse(res.body).status, status);
}

describe('JSON nesting limit', () => {
  const post = (url: string, payload: string, headers: Record<string, string> = svc.auth()) =>
    svc.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload,
    });

  test('a body nested 5,000 deep is a 400 problem on every JSON route, not a 500', async () => {
    const deep = nested(5000);
    for (const url of ['/api/v1/extract', '/api/v1/crawl', '/api/v1/webhooks', '/api/v1/schemas', '/mcp']) {
      const res = await post(url, deep);
      assertProblem(res, 400);
      assert.match(JSON.parse(res.body).detail, /nested deeper than 64/, url);
    }
    // Inside an object, as a field's value, the same.
    const res = await post('/api/v1/extract', `{"url":"https://example.com","schema":${nested(5000, '{}')}}`);
    assertProblem(res, 400);
  });

  test('a key is still checked first, and nesting within the limit or inside strings is read as usual', async () => {
    assertProblem(await post('/api/v1/extract', nested(5000), {}), 401);
    // 64 levels parse (then the schema refuses the array: 422), brackets in a string do not count.
    assertProblem(await post('/api/v1/extract', nested(63, '{}')), 422);
    const inString = JSON.stringify({
      url: 'https://example.com/',
      schema: { title: 'string' },
      prompt: '['.repeat(5000),
    });
    const res = await post('/api/v1/extract', inString);
    assert.notEqual(res.statusCode, 400, res.body.slice(0, 300));
    assert.notEqual(res.statusCode, 500, res.body.slice(0, 300));
  });

  test('a schema given as YAML text nested 5,000 deep is a 422, not a 500', async () => {
    // js-yaml stops at its own depth (100); the parser's error is a located 422.
    for (const text of [`name: x\nfields:\n  a: ${nested(5000, 'string')}`, `a: ${nested(5000, '{}')}`]) {
      const res = await post('/api/v1/schemas', JSON.stringify({ name: 'deep', schema_yaml: text }));
      assertProblem(res, 422);
    }
  });
});

describe('/metrics without a token', () => {
  test('beyond loopback and without METRICS_TOKEN it is not served (404 problem)', async () => {
    for (const HOST of ['0.0.0.0', '::', '192.0.2.10']) {
      const app = await appWith({ HOST, METRICS_TOKEN: undefined });
      assertProblem(await app.inject({ url: '/metrics' }), 404);
    }
  });

  test('with METRICS_TOKEN it answers only the token; on loopback without one it answers', async () => {
    const guarded = await appWith({ HOST: '0.0.0.0', METRICS_TOKEN: 'scrape-token-1' });
    assert.equal((await guarded.inject({ url: '/metrics' })).statusCode, 401);
    const ok = await guarded.inject({ url: '/metrics', headers: { authorization: 'Bearer scrape-token-1' } });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /extract_service_/);
    for (const HOST of ['127.0.0.1', '::1', 'localhost']) {
      const local = await appWith({ HOST, METRICS_TOKEN: undefined });
      assert.equal((await local.inject({ url: '/metrics' })).statusCode, 200, HOST);
    }
  });
});

describe('failed authentications per client address', () => {
  const jobs = (app: FastifyInstance, remoteAddress: string, key?: string) =>
    app.inject({
      url: '/api/v1/jobs',
      remoteAddress,
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    });

  test('past the limit an address gets 429 with Retry-After, even with a valid key; others are unaffected', async () => {
    const app = await appWith({ AUTH_FAILURE_LIMIT: 5, AUTH_FAILURE_WINDOW_MS: 60_000 });
    for (let i = 0; i < 5; i++) assertProblem(await jobs(app, '203.0.113.7', `sk_guess_${i}`), 401);
    const refused = await jobs(app, '203.0.113.7', 'sk_guess_6');
    assertProblem(refused, 429);
    const wait = Number(refused.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${refused.headers['retry-after']}`);
    assertProblem(await jobs(app, '203.0.113.7', svc.apiKey), 429);
    // IPv4-mapped spelling of the same address: the same client.
    assertProblem(await jobs(app, '::ffff:203.0.113.7', svc.apiKey), 429);
    // Another address is served, and a missing key is not a guess.
    assert.equal((await jobs(app, '203.0.113.8', svc.apiKey)).statusCode, 200);
    for (let i = 0; i < 10; i++) assertProblem(await jobs(app, '203.0.113.9'), 401);
    assert.equal((await jobs(app, '203.0.113.9', svc.apiKey)).statusCode, 200);
  });

  test('an IPv6 client is counted by its /64', async () => {
    const app = await appWith({ AUTH_FAILURE_LIMIT: 3, AUTH_FAILURE_WINDOW_MS: 60_000 });
    for (let i = 0; i < 3; i++)
      assertProblem(await jobs(app, `2001:db8:7:7::${i + 1}`, `sk_guess_${i}`), 401);
    assertProblem(await jobs(app, '2001:db8:7:7::99', svc.apiKey), 429);
    assert.equal((await jobs(app, '2001:db8:7:8::1', svc.apiKey)).statusCode, 200);
  });

  test('the address is served again once its window ends', async () => {
    const app = await appWith({ AUTH_FAILURE_LIMIT: 2, AUTH_FAILURE_WINDOW_MS: 1000 });
    for (let i = 0; i < 2; i++) assertProblem(await jobs(app, '198.51.100.1', `sk_guess_${i}`), 401);
    assertProblem(await jobs(app, '198.51.100.1', svc.apiKey), 429);
    await sleep(1300);
    assert.equal((await jobs(app, '198.51.100.1', svc.apiKey)).statusCode, 200);
  });
});

describe('path spellings with ; parameters and look-alike segments', () => {
  let port: number;
  before(async () => {
    const app = await appWith({ AUTH_FAILURE_LIMIT: 1000 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });

  const raw = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; type: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) }),
        );
      });
      req.on('error', reject);
      req.end();
    });

  const SPELLINGS = [
    '/api;/v1/jobs',
    '/api;x=1/v1/jobs',
    '/api/v1;/jobs',
    '/api%3B/v1/jobs',
    '/api%3b/v1/jobs',
    '/API;/V1/JOBS',
    '/api./v1/jobs',
    '/api%00/v1/jobs',
    '/api%20/v1/jobs',
    '/mcp;x',
  ];

  test('without a key, or with a wrong one, every spelling is a 401 problem', async () => {
    for (const path of SPELLINGS) {
      for (const headers of [{}, { authorization: 'Bearer sk_wrong' }] as Record<string, string>[]) {
        const res = await raw(path, headers);
        assert.equal(res.status, 401, `${path} answered ${res.status}`);
        assert.match(res.type, /^application\/problem\+json/);
      }
    }
  });

  test('with a valid key they are counted against the tenant, and over its limit 429', async () => {
    const { tenantId, apiKey } = await svc.newTenant('semicolon-limited');
    await svc.deps.tenants.setRateLimit(tenantId, 3);
    const headers = { authorization: `Bearer ${apiKey}` };
    const statuses: number[] = [];
    for (const path of [
      '/api;/v1/jobs',
      '/api%3B/v1/jobs',
      '/api;x/v1/jobs',
      '/api;/v1/jobs',
      '/api./v1/jobs',
    ])
      statuses.push((await raw(path, headers)).status);
    assert.deepEqual(statuses, [404, 404, 404, 429, 429]);
  });
});
