// Model settings through the API, and what they do to real extractions: BYOK, chains and fallback,
// llm_config, no_models, debug captures — with keys kept out of responses, history and captures.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiDeps } from '../../../api/deps.js';
import { checkBaseUrl } from '../../../api/llm-config.js';
import { COLLECTIONS } from '../../../shared/store/mongo.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;
let site: FixtureSite;

before(async () => {
  svc = await startTestService();
  site = await startFixtureSite();
  site.route(
    '/item',
    html('Chair', '<h1>Oak Chair</h1><p>Price: 80</p><p>' + 'Solid oak. '.repeat(30) + '</p>'),
  );
});
after(async () => {
  await site?.close();
  await svc?.close();
});

async function tenant(name: string) {
  const t = await svc.newTenant(name);
  const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
    svc.app.inject({ method, url, headers: svc.auth(t.apiKey), ...(payload ? { payload } : {}) });
  const extract = (extra: object = {}) =>
    call('POST', '/api/v1/extract', {
      url: `${site.url}/item`,
      schema: { name: 'string', price: 'number' },
      ...extra,
    });
  return { ...t, call, extract };
}

describe('GET /llm/providers', () => {
  test('lists the providers; decommissioned ones only on request, with a successor', async () => {
    const t = await tenant('providers');
    const names = (await t.call('GET', '/api/v1/llm/providers'))
      .json()
      .providers.map((p: { name: string }) => p.name);
    assert.deepEqual(names, ['openai', 'anthropic', 'openrouter', 'ollama', 'openai_compatible']);
    const all = (await t.call('GET', '/api/v1/llm/providers?include_decommissioned=true')).json().providers;
    const old = all.find((p: { status: string }) => p.status === 'decommissioned');
    assert.equal(old.successor_provider, 'anthropic');
    assert.equal(all.find((p: { name: string }) => p.name === 'ollama').requires_key, false);
  });
});

describe('/llm/keys', () => {
  test('a key is stored sealed, reported as has_key only, kept when api_key is empty, and deleted', async () => {
    const t = await tenant('keys');
    const put = await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      api_key: 'sk-tenant-secret-1',
      is_enabled: true,
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().has_key, true);
    assert.ok(!put.body.includes('sk-tenant-secret-1'));
    const stored = await svc.mongo.db.collection(COLLECTIONS.llmKeys).find().toArray();
    assert.ok(!JSON.stringify(stored).includes('sk-tenant-secret-1'), 'only the sealed key is stored');

    const again = await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      api_key: '',
      is_enabled: false,
    });
    assert.equal(again.json().has_key, true, 'an empty api_key keeps the stored key');
    assert.equal(again.json().is_enabled, false);
    assert.equal(again.json().id, put.json().id);
    const list = (await t.call('GET', '/api/v1/llm/keys')).json().keys;
    assert.equal(list.length, 1);
    assert.equal((await t.call('DELETE', '/api/v1/llm/keys/openai')).statusCode, 204);
    assert.equal((await t.call('DELETE', '/api/v1/llm/keys/openai')).statusCode, 404);
  });

  test('unknown or decommissioned providers and bad base URLs are 422 naming the field', async () => {
    const t = await tenant('keys-bad');
    const unknown = await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'nope',
      api_key: 'x',
      is_enabled: true,
    });
    assert.equal(unknown.statusCode, 422);
    assert.equal(unknown.json().errors[0].location, 'body.provider');
    const legacy = await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'anthropic_text_completions',
      is_enabled: true,
    });
    assert.equal(legacy.statusCode, 422);
    const badUrl = await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'ollama',
      base_url: 'ftp://x',
      is_enabled: true,
    });
    assert.equal(badUrl.json().errors[0].location, 'body.base_url');
  });

  test('a base_url on a private or metadata address is refused when private addresses are not allowed', async () => {
    const deps = { config: { ...svc.config, ALLOW_PRIVATE_ADDRESSES: false } } as ApiDeps;
    for (const url of ['http://169.254.169.254/v1', 'http://127.0.0.1:11434/v1', 'http://10.1.2.3/v1']) {
      await assert.rejects(checkBaseUrl(deps, 'openai_compatible', url, 'body.base_url'), (err: Error) => {
        assert.match(err.message, /not allowed/);
        return true;
      });
    }
  });
});

describe('BYOK and chains in real extractions', () => {
  test("a tenant's key is used for its provider: the job is BYOK and costs the caller nothing", async () => {
    const t = await tenant('byok');
    await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      api_key: 'sk-tenant-good',
      base_url: svc.llm.openaiBaseUrl,
      is_enabled: true,
    });
    const res = await t.extract();
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.usage.is_byok, true);
    assert.equal(body.usage.cost_usd, 0);
    assert.ok(body.usage.llm_cost_usd > 0, 'the list price is still reported');
    const job = (await t.call('GET', `/api/v1/jobs/${body.job_id}`)).json();
    assert.equal(job.is_byok, true);
  });

  test('an invalid tenant key fails the job with invalid_key and does not fall back', async () => {
    const t = await tenant('byok-bad');
    await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      api_key: 'bad-tenant-key',
      base_url: svc.llm.openaiBaseUrl,
      is_enabled: true,
    });
    await t.call('PUT', '/api/v1/llm/chain', {
      chain: [
        { provider: 'openai', model: 'gpt-4o-mini' },
        { provider: 'anthropic', model: 'claude-3-5-haiku-latest' },
      ],
    });
    const before = svc.llm.requests.filter((r) => r.api === 'anthropic').length;
    const res = await t.extract();
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json().error_category, 'invalid_key');
    assert.ok(!res.body.includes('bad-tenant-key'), 'the key is not echoed');
    assert.equal(
      svc.llm.requests.filter((r) => r.api === 'anthropic').length,
      before,
      'no fallback after an invalid key',
    );
    const job = (await t.call('GET', `/api/v1/jobs/${res.json().job_id}`)).json();
    assert.equal(job.error_category, 'invalid_key');
    assert.ok(!job.error_message.includes('bad-tenant-key'));
  });

  test('the chain falls back past a rate-limited model, records the position, and captures both calls', async () => {
    const t = await tenant('chain');
    const chain = await t.call('PUT', '/api/v1/llm/chain', {
      chain: [
        { provider: 'openai', model: 'fake-429' },
        { provider: 'anthropic', model: 'claude-3-5-haiku-latest', temperature: 0.2, max_tokens: 1000 },
      ],
    });
    assert.equal(chain.statusCode, 200, chain.body);
    assert.deepEqual(
      chain.json().chain.map((e: { position: number }) => e.position),
      [0, 1],
    );
    assert.equal((await t.call('GET', '/api/v1/llm/chain')).json().chain[1].max_tokens, 1000);

    const res = await t.extract({ capture_debug: true });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.metadata.provider, 'anthropic');
    assert.equal(body.metadata.fallback_position, 1);
    assert.equal(body.usage.is_byok, false);
    assert.deepEqual(body.data, { name: 'Oak Chair', price: 80 });

    const report = (await t.call('GET', `/api/v1/jobs/${body.job_id}/debug-capture`)).json();
    assert.equal(report.enabled, true);
    assert.equal(report.total_requests, 2);
    const [first, second] = report.captures;
    assert.equal(first.request.provider, 'openai');
    assert.equal(first.response.error_category, 'rate_limit');
    assert.equal(first.response.success, false);
    assert.equal(second.request.fallback_position, 1);
    assert.equal(second.request.temperature, 0.2);
    assert.equal(second.request.max_tokens, 1000);
    assert.equal(second.response.success, true);
    assert.deepEqual(second.response.parsed_output, { name: 'Oak Chair', price: 80 });
    assert.match(second.request.page_content, /Oak Chair/);
    assert.equal(report.total_tokens_in, body.usage.input_tokens);
    const text = JSON.stringify(report);
    for (const secret of ['sk-test-operator', 'sk-ant-test-operator']) assert.ok(!text.includes(secret));
  });

  test('a job without capture_debug has an empty, disabled report', async () => {
    const t = await tenant('nodebug');
    const res = await t.extract();
    const report = (await t.call('GET', `/api/v1/jobs/${res.json().job_id}/debug-capture`)).json();
    assert.equal(report.enabled, false);
    assert.deepEqual(report.captures, []);
  });

  test('llm_config with its own key runs one model; the key stays out of history, events and captures', async () => {
    const t = await tenant('llmconfig');
    const secret = 'sk-job-only-secret-42';
    const res = await t.extract({
      capture_debug: true,
      llm_config: {
        provider: 'openai_compatible',
        model: 'my-model',
        api_key: secret,
        base_url: svc.llm.openaiBaseUrl,
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.metadata.provider, 'openai_compatible');
    assert.equal(body.usage.is_byok, true);
    assert.equal(body.metadata.price_known, false);
    const history = await svc.deps.temporal.workflow.getHandle(`extract-${body.job_id}`).fetchHistory();
    assert.ok(!JSON.stringify(history).includes(secret), 'the key is not in workflow history');
    const events = await svc.deps.events.list(body.job_id);
    assert.ok(!JSON.stringify(events).includes(secret));
    const report = await t.call('GET', `/api/v1/jobs/${body.job_id}/debug-capture`);
    assert.ok(!report.body.includes(secret));
  });

  test('no usable model is a 409 no_models problem (the stored settings) that says what to do', async () => {
    const t = await tenant('nomodels');
    const res = await t.extract({ llm_config: { provider: 'openrouter', model: 'openai/gpt-4o' } });
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().error_category, 'no_models');
    assert.match(res.json().detail, /llm\/keys|api_key/);
  });

  test('another tenant sees none of these settings', async () => {
    const a = await tenant('iso-a');
    const b = await tenant('iso-b');
    await a.call('PUT', '/api/v1/llm/keys', { provider: 'anthropic', api_key: 'sk-ant-a', is_enabled: true });
    await a.call('PUT', '/api/v1/llm/chain', {
      chain: [{ provider: 'anthropic', model: 'claude-3-5-haiku-latest' }],
    });
    assert.deepEqual((await b.call('GET', '/api/v1/llm/keys')).json().keys, []);
    assert.deepEqual((await b.call('GET', '/api/v1/llm/chain')).json().chain, []);
    assert.equal((await b.call('DELETE', '/api/v1/llm/keys/anthropic')).statusCode, 404);
  });
});

describe('debug captures and provenance', () => {
  test('the capture of a partly structured page holds the provenance the result reports', async () => {
    // JSON-LD answers name and price; the model answers colour (test/extract/structured-data.test.ts runs the
    // rest of structured data first on fake activities). The chain writes the capture; the page its provenance.
    const product = JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Green Kettle',
      offers: { '@type': 'Offer', price: '30.00', priceCurrency: 'USD' },
    });
    site.route(
      '/ld-partial',
      html(
        'Green Kettle',
        `<script type="application/ld+json">${product}</script>` +
          '<main><h1>Green Kettle</h1><p>Price: $30.00</p><p>Colour: Green</p></main>',
      ),
    );
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/ld-partial`,
        schema: { name: 'string', price: 'number', colour: 'string' },
        capture_debug: true,
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.metadata.provenance.name.source, 'structured_data');
    assert.equal(body.metadata.provenance.colour.source, 'model');
    const capture = await svc.app
      .inject({ url: `/api/v1/jobs/${body.job_id}/debug-capture`, headers: svc.auth() })
      .then((r) => r.json());
    const answered = capture.captures.find((c: { response: { success: boolean } }) => c.response.success);
    assert.deepEqual(answered.response.provenance, body.metadata.provenance);
  });
});
