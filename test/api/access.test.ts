// API key scopes and API versions, through the API: what a read-only, extract-only or jobs-only key may do
// (403 problems naming the scope otherwise), keys pinned to the refyne version or chosen per request with
// X-API-Version (v1 stays the default), and requests built from the Refyne product's models (nulls meaning
// absent, camelCase aliases, its crawl options honoured or refused).
// Jobs run on the real workflows with fake activities (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../../clients/typescript/src/index.js';
import type { ApiKeyScope } from '../../shared/api-keys.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();

before(async () => {
  svc = await startTestService({
    env: { RATE_LIMIT_PER_MINUTE: '1000' },
    activities: fakeActivities({ pages: site.pages }),
  });
  site.route(
    '/item',
    html('Chair', '<h1>Oak Chair</h1><p>Price: 80</p><p>' + 'Solid oak. '.repeat(30) + '</p>'),
  );
});
after(async () => {
  await svc?.close();
});

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';
const call = (key: string, method: Method, url: string, payload?: object, headers: object = {}) =>
  svc.app.inject({ method, url, headers: { ...svc.auth(key), ...headers }, ...(payload ? { payload } : {}) });
const keyWith = async (scopes: ApiKeyScope[], api_version: 'v1' | 'refyne' = 'v1') =>
  (await svc.deps.tenants.createKey(svc.tenantId, scopes.join('+'), { scopes, api_version })).key;
const extractBody = () => ({ url: `${site.url}/item`, schema: { name: 'string', price: 'number' } });

describe('API key scopes', () => {
  test('a read-only key reads everything and starts or changes nothing (403 naming the scope)', async () => {
    const read = await keyWith(['read']);
    for (const url of [
      '/api/v1/jobs',
      '/api/v1/keys',
      '/api/v1/llm/chain',
      '/api/v1/usage',
      '/api/v1/cleaners',
    ])
      assert.equal((await call(read, 'GET', url)).statusCode, 200, url);
    for (const [method, url, body] of [
      ['POST', '/api/v1/extract', extractBody()],
      ['POST', '/api/v1/crawl', extractBody()],
      ['PUT', '/api/v1/llm/chain', { chain: [] }],
      ['POST', '/api/v1/keys', { name: 'escalate' }],
      ['DELETE', '/api/v1/keys/key_x', undefined],
    ] as const) {
      const res = await call(read, method, url, body);
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      const problem = res.json();
      assert.equal(problem.type, '/problems/forbidden');
      assert.match(problem.detail, /scopes read, which do not allow/);
      assert.match(problem.errors[0].message, /scope .*full.* required/);
    }
  });

  test('an extract-only key extracts and reads its jobs, and cannot crawl or change settings', async () => {
    const extract = await keyWith(['extract']);
    const res = await call(extract, 'POST', '/api/v1/extract', extractBody());
    assert.equal(res.statusCode, 200, res.body);
    const { job_id } = res.json();
    assert.equal((await call(extract, 'GET', `/api/v1/jobs/${job_id}/results`)).statusCode, 200);
    const crawl = await call(extract, 'POST', '/api/v1/crawl', extractBody());
    assert.equal(crawl.statusCode, 403);
    assert.match(crawl.json().detail, /needs the scope full or crawl/);
    assert.equal((await call(extract, 'GET', '/api/v1/llm/keys')).statusCode, 403);
    assert.equal((await call(extract, 'PUT', '/api/v1/llm/chain', { chain: [] })).statusCode, 403);
  });

  test('a jobs key only reads jobs; every key may call GET /health', async () => {
    const jobs = await keyWith(['jobs']);
    assert.equal((await call(jobs, 'GET', '/api/v1/jobs')).statusCode, 200);
    assert.equal((await call(jobs, 'GET', '/api/v1/health')).statusCode, 200);
    assert.equal((await call(jobs, 'GET', '/api/v1/sites')).statusCode, 403);
  });

  test('keys are made with scopes, shown with them, and an expired key is refused', async () => {
    const made = await call(svc.apiKey, 'POST', '/api/v1/keys', { name: 'ro', scopes: ['read', 'jobs'] });
    assert.equal(made.statusCode, 201, made.body);
    const created = made.json();
    assert.deepEqual(created.scopes, ['read', 'jobs']);
    assert.equal(created.key_prefix, created.prefix);
    assert.ok(created.key.startsWith(created.key_prefix));
    const listed = (await call(svc.apiKey, 'GET', '/api/v1/keys')).json().keys;
    const shown = listed.find((k: { id: string }) => k.id === created.id);
    assert.deepEqual(Object.keys(shown).sort(), [
      'api_version',
      'created_at',
      'expires_at',
      'id',
      'key_prefix',
      'last_used_at',
      'name',
      'prefix',
      'scopes',
    ]);
    assert.ok(!JSON.stringify(listed).includes(created.key), 'never the key itself');
    const bad = await call(svc.apiKey, 'POST', '/api/v1/keys', { name: 'x', scopes: ['admin'] });
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().errors[0].location, 'body.scopes.0');
    const past = await call(svc.apiKey, 'POST', '/api/v1/keys', {
      name: 'old',
      expires_at: '2000-01-01T00:00:00Z',
    });
    assert.equal(past.statusCode, 201);
    assert.equal((await call(past.json().key, 'GET', '/api/v1/jobs')).statusCode, 401);
  });
});

describe('API versions', () => {
  test('v1 is the default; X-API-Version picks one per request; every answer names its version', async () => {
    const v1 = await call(svc.apiKey, 'GET', '/api/v1/health');
    assert.equal(v1.headers['x-api-version'], 'v1');
    assert.deepEqual(Object.keys(v1.json()).sort(), ['api_version', 'checks', 'status', 'version']);
    const refyne = await call(svc.apiKey, 'GET', '/api/v1/health', undefined, { 'x-api-version': 'refyne' });
    assert.equal(refyne.headers['x-api-version'], 'refyne');
    assert.deepEqual(Object.keys(refyne.json()).sort(), ['status', 'version']);
    const unknown = await call(svc.apiKey, 'GET', '/api/v1/health', undefined, { 'x-api-version': 'v9' });
    assert.equal(unknown.statusCode, 422);
    assert.equal(unknown.json().errors[0].location, 'header.x-api-version');
  });

  test("a refyne key gets the product's shapes: results object, {success} deletes, 400 validation", async () => {
    const key = await keyWith(['full'], 'refyne');
    const extracted = await call(key, 'POST', '/api/v1/extract', { ...extractBody(), fetchMode: 'static' });
    assert.equal(extracted.statusCode, 200, extracted.body);
    const body = extracted.json();
    assert.deepEqual(Object.keys(body.metadata).sort(), [
      'extract_duration_ms',
      'fetch_duration_ms',
      'model',
      'provider',
    ]);
    const results = (await call(key, 'GET', `/api/v1/jobs/${body.job_id}/results`)).json();
    assert.deepEqual(Object.keys(results), ['job_id', 'status', 'page_count', 'results', 'merged']);
    assert.deepEqual(results.results, [
      { id: results.results[0].id, url: `${site.url}/item`, data: body.data },
    ]);
    const merged = (await call(key, 'GET', `/api/v1/jobs/${body.job_id}/results?merge=true`)).json();
    assert.deepEqual([merged.results, merged.merged], [null, body.data]);
    // The default answer is still the interface's array, for the same job.
    const array = (await call(svc.apiKey, 'GET', `/api/v1/jobs/${body.job_id}/results`)).json();
    assert.ok(Array.isArray(array) && array[0].status === 'completed');
    const job = (await call(key, 'GET', `/api/v1/jobs/${body.job_id}`)).json();
    assert.equal(job.workflow_id, undefined, 'no field beyond the product model');

    const schema = await call(key, 'POST', '/api/v1/schemas', { name: 'S', schema_yaml: 'title: string' });
    const deleted = await call(key, 'DELETE', `/api/v1/schemas/${schema.json().id}`);
    assert.deepEqual([deleted.statusCode, deleted.json()], [200, { success: true }]);
    const invalid = await call(key, 'POST', '/api/v1/extract', { url: 'nope', schema: { a: 'string' } });
    assert.equal(invalid.statusCode, 400);
    const problem = invalid.json();
    assert.match(problem.type, /^http:\/\/.+\/problems\/validation-error$/);
    assert.equal(problem.errors[0].location, 'body.url');
    assert.equal(problem.error_category, undefined);
  });
});

describe('our own clients', () => {
  test('ask for v1, so they work unchanged with a key pinned to refyne', async () => {
    const key = await keyWith(['full'], 'refyne');
    const base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const client = createClient({ baseUrl: base, apiKey: key });
    const extracted = await client.extract({ url: `${site.url}/item`, schema: { name: 'string' } });
    assert.ok('metadata' in extracted && 'data_source' in extracted.metadata);
    const results = await client.results(extracted.job_id);
    assert.ok(Array.isArray(results) && results[0]?.status === 'completed');
  });
});

describe("requests built from the product's models", () => {
  test('null means absent, camelCase aliases are read, unknown fields stay refused', async () => {
    const res = await call(svc.apiKey, 'POST', '/api/v1/extract', {
      ...extractBody(),
      fetchMode: 'static',
      capture_debug: null,
      cleaner_chain: null,
      webhook: null,
      webhook_id: null,
      webhookUrl: null,
      llmConfig: null,
    });
    assert.equal(res.statusCode, 200, res.body);
    const both = await call(svc.apiKey, 'POST', '/api/v1/extract', {
      ...extractBody(),
      fetch_mode: 'static',
      fetchMode: 'dynamic',
    });
    assert.equal(both.statusCode, 422);
    assert.equal(both.json().errors[0].location, 'body.fetchMode');
    const unknown = await call(svc.apiKey, 'POST', '/api/v1/extract', {
      ...extractBody(),
      target_provider: 'x',
    });
    assert.equal(unknown.statusCode, 422);
    for (const step of [{ name: 'refyne' }, { name: 'markdown', options: { output: 'html' } }]) {
      const cleaner = await call(svc.apiKey, 'POST', '/api/v1/extract', {
        ...extractBody(),
        cleaner_chain: [step],
      });
      assert.equal(cleaner.statusCode, 422, JSON.stringify(step));
      assert.match(cleaner.json().errors[0].location, /^body\.cleaner_chain\.0/);
    }
    const helicone = await call(svc.apiKey, 'POST', '/api/v1/extract', {
      ...extractBody(),
      llm_config: { provider: 'helicone', model: 'x' },
    });
    assert.equal(helicone.statusCode, 422);
    const noModel = await call(svc.apiKey, 'POST', '/api/v1/extract', {
      ...extractBody(),
      llm_config: { provider: 'anthropic' },
    });
    assert.equal(noModel.statusCode, 422);
    assert.equal(noModel.json().errors[0].location, 'body.llm_config.model');
  });

  test('crawl options: max_urls bounds the pages, extract_from_seeds false and use_sitemap true are refused', async () => {
    for (const [option, value] of [
      ['extract_from_seeds', false],
      ['use_sitemap', true],
    ] as const) {
      const res = await call(svc.apiKey, 'POST', '/api/v1/crawl', {
        ...extractBody(),
        options: { [option]: value },
      });
      assert.equal(res.statusCode, 422, option);
      const error = res.json().errors[0];
      assert.equal(error.location, `body.options.${option}`);
      assert.match(error.message, /not offered/);
    }
    const conflict = await call(svc.apiKey, 'POST', '/api/v1/crawl', {
      ...extractBody(),
      fetch_mode: 'static',
      options: { fetch_mode: 'dynamic' },
    });
    assert.equal(conflict.statusCode, 422);
    assert.equal(conflict.json().errors[0].location, 'body.options.fetch_mode');
    const crawl = await call(svc.apiKey, 'POST', '/api/v1/crawl?wait=true&timeout=60', {
      ...extractBody(),
      options: {
        max_urls: 1,
        max_pages: 10,
        extract_from_seeds: true,
        use_sitemap: false,
        fetch_mode: 'static',
      },
    });
    assert.equal(crawl.statusCode, 200, crawl.body);
    assert.equal(crawl.json().page_count, 1);
    const map = (await call(svc.apiKey, 'GET', `/api/v1/jobs/${crawl.json().job_id}/crawl-map`)).json();
    for (const entry of map.entries)
      for (const field of ['extract_duration_ms', 'fetch_duration_ms', 'clean_duration_ms'])
        assert.ok(Number.isInteger(entry[field]), field);
  });
});
