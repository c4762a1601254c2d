// Authentication and the rate limit hold however the path of an /api/v1 route is spelled. Requests go over a
// real socket with the path bytes exactly as written (no client-side URL normalisation).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
let port: number;

before(async () => {
  // Many wrong keys from one address on purpose: the limit on unknown keys (api-limits.test.ts) is raised.
  svc = await startTestService({
    worker: false,
    env: { RATE_LIMIT_PER_MINUTE: '1000', AUTH_FAILURE_LIMIT: '1000' },
  });
  await svc.app.listen({ host: '127.0.0.1', port: 0 });
  port = (svc.app.server.address() as AddressInfo).port;
});
after(async () => svc?.close());

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  payload?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

// Every spelling a router, a proxy or a URL parser might read as an /api/v1 route.
const SPELLINGS = [
  '/api/v1/llm/providers',
  '/%61pi/v1/llm/providers',
  '/%61%70%69/%76%31/llm/providers',
  '/api/v1/llm/%70roviders',
  '/api%2Fv1/llm/providers',
  '/%2561pi/v1/llm/providers',
  '//api/v1/llm/providers',
  '/api//v1/llm/providers',
  '/api/v1//llm/providers',
  '/API/v1/llm/providers',
  '/Api/V1/LLM/providers',
  '/api/v1/llm/providers/',
  '/api/v1/llm/../llm/providers',
  '/api/v1/./llm/providers',
  '/api\\v1\\llm\\providers',
  '/%61pi/v1/jobs',
  '/%61pi/v1/jobs/abc',
  '//api/v1/jobs',
  '/API/V1/JOBS',
];

describe('authentication under any spelling of the path', () => {
  for (const path of SPELLINGS) {
    test(`${path} without a key is 401 problem+json`, async () => {
      const res = await raw(path);
      assert.equal(res.status, 401, `${path} answered ${res.status}: ${res.body.slice(0, 200)}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    });
    test(`${path} with a wrong key is 401`, async () => {
      const res = await raw(path, { authorization: 'Bearer sk_wrong' });
      assert.equal(res.status, 401, `${path} answered ${res.status}`);
    });
  }

  test('an encoded spelling that reaches a handler does so only with a valid key, as its tenant', async () => {
    const res = await raw('/%61pi/v1/llm/providers', svc.auth());
    assert.equal(res.status, 200, res.body.slice(0, 200));
    const jobs = await raw('/%61pi/v1/jobs', svc.auth());
    assert.equal(jobs.status, 200, jobs.body.slice(0, 200));
  });

  test('public routes stay public, and unknown non-API paths are plain 404s', async () => {
    assert.equal((await raw('/healthz')).status, 200);
    assert.equal((await raw('/api/v1/openapi.json')).status, 200);
    assert.equal((await raw('/%61pi/v1/openapi.json')).status, 200);
    const unknown = await raw('/nothing-here');
    assert.equal(unknown.status, 404);
    assert.match(String(unknown.headers['content-type']), /^application\/problem\+json/);
  });

  test('a path parameter too long for the router is authenticated first, then a 422 problem naming the path', async () => {
    const long = `/api/v1/jobs/${'x'.repeat(2000)}`;
    const anonymous = await raw(long);
    assert.equal(anonymous.status, 401);
    assert.match(String(anonymous.headers['content-type']), /^application\/problem\+json/);
    const authed = await raw(long, svc.auth());
    assert.equal(authed.status, 422);
    assert.match(String(authed.headers['content-type']), /^application\/problem\+json/);
    assert.equal(JSON.parse(authed.body).status, 422);
    assert.equal(JSON.parse(authed.body).errors[0].location, 'path');
  });

  test('an id of 200 characters reaches the route (404 for this tenant, not refused by the router)', async () => {
    const res = await raw(`/api/v1/jobs/${'j'.repeat(200)}`, svc.auth());
    assert.ok(res.status === 404 || res.status === 422, `answered ${res.status}`);
  });
});

describe('the rate limit under any spelling of the path', () => {
  test('every spelling counts against the tenant, and over the limit is 429 whatever the spelling', async () => {
    const { tenantId, apiKey } = await svc.newTenant('limited');
    await svc.deps.tenants.setRateLimit(tenantId, 5);
    const headers = { authorization: `Bearer ${apiKey}` };
    const spellings = ['/api/v1/jobs', '/%61pi/v1/jobs', '//api/v1/jobs', '/API/v1/jobs', '/%61pi/v1/nope'];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await raw(spellings[i % spellings.length] as string, headers)).status);
    assert.equal(statuses.filter((s) => s === 429).length, 5, `statuses: ${statuses.join(',')}`);
    for (const path of spellings) {
      const res = await raw(path, headers);
      assert.equal(res.status, 429, `${path} answered ${res.status}`);
      assert.ok(res.headers['retry-after'], 'Retry-After');
    }
  });
});

// The MCP endpoint (POST /mcp, api/mcp/route.ts) is outside /api/v1 and held to the same rules.
const MCP_SPELLINGS = [
  '/mcp',
  '/MCP',
  '/Mcp',
  '/mcp/',
  '//mcp',
  '/%6dcp',
  '/%6Dcp',
  '/%256dcp',
  '/mcp/x',
  '/mcp?x=1',
];
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const mcp = (path: string, headers: Record<string, string> = {}) =>
  raw(path, { ...MCP_HEADERS, ...headers }, 'POST', PING);

describe('the MCP endpoint under any spelling of the path', () => {
  for (const path of MCP_SPELLINGS) {
    test(`POST and GET ${path} without a key, or with a wrong one, are 401 problem+json`, async () => {
      for (const res of [
        await mcp(path),
        await raw(path),
        await mcp(path, { authorization: 'Bearer sk_wrong' }),
      ]) {
        assert.equal(res.status, 401, `${path} answered ${res.status}: ${res.body.slice(0, 200)}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      }
    });
  }

  test('with a valid key /mcp answers JSON-RPC; a spelling the router does not match is a 404 problem', async () => {
    const ok = await mcp('/mcp', svc.auth());
    assert.equal(ok.status, 200, ok.body);
    assert.deepEqual(JSON.parse(ok.body), { jsonrpc: '2.0', id: 1, result: {} });
    const decoded = await mcp('/%6dcp', svc.auth());
    assert.equal(decoded.status, 200, 'the router decodes it to /mcp: authenticated, as its tenant');
    const other = await mcp('/MCP', svc.auth());
    assert.equal(other.status, 404);
    assert.match(String(other.headers['content-type']), /^application\/problem\+json/);
  });

  test('every spelling of /mcp counts against the tenant, and over the limit is 429', async () => {
    const { tenantId, apiKey } = await svc.newTenant('mcp-limited');
    await svc.deps.tenants.setRateLimit(tenantId, 5);
    const headers = { authorization: `Bearer ${apiKey}` };
    const spellings = ['/mcp', '/MCP', '//mcp', '/mcp/', '/%6dcp'];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await mcp(spellings[i % spellings.length] as string, headers)).status);
    assert.equal(statuses.filter((s) => s === 429).length, 5, `statuses: ${statuses.join(',')}`);
    for (const path of spellings) {
      const res = await mcp(path, headers);
      assert.equal(res.status, 429, `${path} answered ${res.status}`);
      assert.ok(res.headers['retry-after'], 'Retry-After');
    }
  });
});
