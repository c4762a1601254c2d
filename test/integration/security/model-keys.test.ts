// Model keys go only to the endpoint they were given for.
// A loopback "provider" that a caller names as base_url records the credentials of every request it gets and
// forwards it to the fake model server, so the SDKs see real answers. Against the whole stack: the operator's
// keys and a tenant's stored keys never reach it unless the key was given for it; every model call passes the
// address policy, ollama's default endpoint included.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { resolveChain } from '../../../activities/extraction/llm/chain.js';
import { callModel } from '../../../activities/extraction/llm/providers.js';
import { awaitJob } from '../../../api/job-answer.js';
import { startJob } from '../../../api/job-runner.js';
import { loadConfig } from '../../../shared/config.js';
import { CategorizedError } from '../../../shared/errors.js';
import { normalizeSchema } from '../../../shared/schema-input.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

/** Providers that may take a base_url, and openrouter, which never does. */
const OVERRIDABLE = ['openai', 'anthropic', 'openai_compatible', 'ollama'] as const;
const ALL = [...OVERRIDABLE, 'openrouter'] as const;

interface Receiver {
  url: string;
  /** The credentials of each request received: Authorization (without "Bearer ") and x-api-key values. */
  seen: string[][];
  close(): Promise<void>;
}

async function startReceiver(upstream: () => string): Promise<Receiver> {
  const seen: string[][] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const bearer = /^Bearer\s+(.*)$/i.exec(req.headers.authorization ?? '')?.[1];
      const apiKey = req.headers['x-api-key'];
      seen.push([bearer, typeof apiKey === 'string' ? apiKey : undefined].filter((v) => v !== undefined));
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([name, value]) =>
            typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name),
        ),
      ) as Record<string, string>;
      const body = Buffer.concat(chunks);
      const answer = await fetch(new URL(req.url ?? '/', upstream()), {
        method: req.method,
        headers,
        body: body.length > 0 ? body : undefined,
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let svc: TestService;
let site: FixtureSite;
let receiver: Receiver;

before(async () => {
  svc = await startTestService();
  site = await startFixtureSite();
  site.route('/item', html('Chair', `<h1>Oak Chair</h1><p>Price: 80</p><p>${'Solid oak. '.repeat(30)}</p>`));
  receiver = await startReceiver(() => svc.llm.url);
});
after(async () => {
  await receiver?.close();
  await site?.close();
  await svc?.close();
});
beforeEach(() => {
  receiver.seen.length = 0;
});

/** The receiver as the provider's base_url (the Anthropic SDK appends /v1 itself). */
const receiverBase = (provider: string) => (provider === 'anthropic' ? receiver.url : `${receiver.url}/v1`);
/** The fake model server: another endpoint than the receiver. */
const otherBase = (provider: string) =>
  provider === 'anthropic' ? svc.llm.anthropicBaseUrl : svc.llm.openaiBaseUrl;
const modelOf = (provider: string) => (provider === 'anthropic' ? 'claude-3-5-haiku-latest' : 'gpt-4o-mini');

async function tenant(name: string) {
  const t = await svc.newTenant(name);
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
    svc.app.inject({ method, url, headers: svc.auth(t.apiKey), ...(payload ? { payload } : {}) });
  const extract = (llm_config?: object) =>
    call('POST', '/api/v1/extract', {
      url: `${site.url}/item`,
      schema: { name: 'string', price: 'number' },
      ...(llm_config ? { llm_config } : {}),
    });
  const storeKey = (provider: string, api_key: string, base_url?: string) =>
    call('PUT', '/api/v1/llm/keys', {
      provider,
      api_key,
      is_enabled: true,
      ...(base_url ? { base_url } : {}),
    });
  return { ...t, call, extract, storeKey };
}

/** A 422 naming llm_config.base_url, with no job started, and nothing reached the receiver. */
function assertRefused(res: { statusCode: number; body: string; json(): any }, label: string) {
  assert.equal(res.statusCode, 422, `${label}: ${res.body}`);
  assert.equal(res.json().errors?.[0]?.location, 'body.llm_config.base_url', label);
  assert.equal(res.json().job_id, undefined, `${label}: refused before any job`);
  assert.deepEqual(receiver.seen, [], `${label}: the receiver got no request`);
}

describe("the operator's key never goes to a caller's base_url", () => {
  for (const provider of ['openai', 'anthropic', 'openrouter']) {
    test(`${provider}: no key in the request, none stored → 422, the receiver sees nothing`, async () => {
      const t = await tenant(`op-${provider}`);
      const res = await t.extract({ provider, model: modelOf(provider), base_url: receiverBase(provider) });
      assertRefused(res, provider);
    });
  }

  for (const provider of ['openai_compatible', 'ollama']) {
    test(`${provider}: no operator key exists, so the call is keyless and no secret is sent`, async () => {
      const t = await tenant(`op-${provider}`);
      const res = await t.extract({ provider, model: modelOf(provider), base_url: receiverBase(provider) });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(receiver.seen.flat(), ['no-key']); // the SDK's placeholder for "no key"
    });
  }

  test('a crawl (and so a site crawl, which starts one) is refused the same way', async () => {
    const t = await tenant('op-crawl');
    const res = await t.call('POST', '/api/v1/crawl', {
      url: `${site.url}/item`,
      schema: { name: 'string' },
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', base_url: receiverBase('openai') },
    });
    assertRefused(res, 'crawl');
  });

  test("naming the operator's own endpoint is not a leak: its key goes there", async () => {
    const t = await tenant('op-own');
    const res = await t.extract({
      provider: 'openai',
      model: 'gpt-4o-mini',
      base_url: svc.llm.openaiBaseUrl,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().usage.is_byok, false);
  });
});

describe("a tenant's stored key never goes to another base_url", () => {
  for (const provider of ALL) {
    test(`${provider}: stored without a base_url, or for another one → 422, the receiver sees nothing`, async () => {
      const t = await tenant(`stored-${provider}`);
      const stored = await t.storeKey(provider, `sk-tenant-${provider}`);
      assert.equal(stored.statusCode, 200, stored.body);
      const request = { provider, model: modelOf(provider), base_url: receiverBase(provider) };
      assertRefused(await t.extract(request), `${provider}, stored without base_url`);
      if (provider === 'openrouter') return; // takes no base_url at all
      const elsewhere = await t.storeKey(provider, `sk-tenant-${provider}-2`, otherBase(provider));
      assert.equal(elsewhere.statusCode, 200, elsewhere.body);
      assertRefused(await t.extract(request), `${provider}, stored for another base_url`);
    });
  }

  test('a stored key is not moved to another base_url without giving it again', async () => {
    const t = await tenant('stored-move');
    await t.storeKey('openai', 'sk-tenant-move', svc.llm.openaiBaseUrl);
    const move = await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      base_url: receiverBase('openai'),
      is_enabled: true,
    });
    assert.equal(move.statusCode, 422, move.body);
    assert.equal(move.json().errors[0].location, 'body.base_url');
    const key = (await t.call('GET', '/api/v1/llm/keys')).json().keys[0];
    assert.equal(key.base_url, svc.llm.openaiBaseUrl, 'the stored base_url is unchanged');
    // Jobs on the tenant's chain still reach the stored endpoint only.
    const res = await t.extract();
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(receiver.seen, []);
    // Given again with the key, the move is the tenant's own choice.
    const again = await t.call('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      api_key: 'sk-tenant-moved',
      base_url: receiverBase('openai'),
      is_enabled: true,
    });
    assert.equal(again.statusCode, 200, again.body);
  });
});

describe('a key goes where it was given for', () => {
  for (const provider of OVERRIDABLE) {
    test(`${provider}: a key in the same request reaches the receiver, and no other key does`, async () => {
      const t = await tenant(`req-${provider}`);
      await t.storeKey(provider, `sk-tenant-${provider}`); // present, and not to be sent
      const secret = `sk-request-${provider}`;
      const res = await t.extract({
        provider,
        model: modelOf(provider),
        api_key: secret,
        base_url: receiverBase(provider),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(receiver.seen.length > 0);
      assert.deepEqual([...new Set(receiver.seen.flat())], [secret]);
    });

    test(`${provider}: a key stored for this base_url reaches it, from llm_config and from the stored chain`, async () => {
      const t = await tenant(`for-${provider}`);
      const secret = `sk-tenant-for-${provider}`;
      // Stored with a trailing slash: the same endpoint however it is spelled.
      const stored = await t.storeKey(provider, secret, `${receiverBase(provider)}/`);
      assert.equal(stored.statusCode, 200, stored.body);
      const res = await t.extract({ provider, model: modelOf(provider), base_url: receiverBase(provider) });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().usage.is_byok, true);
      const chain = await t.call('PUT', '/api/v1/llm/chain', {
        chain: [{ provider, model: modelOf(provider) }],
      });
      assert.equal(chain.statusCode, 200, chain.body);
      assert.equal((await t.extract()).statusCode, 200);
      assert.equal(receiver.seen.length, 2);
      assert.deepEqual([...new Set(receiver.seen.flat())], [secret]);
    });
  }

  test('openrouter takes no base_url, not even with its own key', async () => {
    const t = await tenant('req-openrouter');
    const res = await t.extract({
      provider: 'openrouter',
      model: 'openai/gpt-4o',
      api_key: 'sk-or-request',
      base_url: receiverBase('openrouter'),
    });
    assertRefused(res, 'openrouter');
  });

  test('chain entries carry no base_url: an endpoint comes only with its key', async () => {
    const t = await tenant('chain-url');
    const res = await t.call('PUT', '/api/v1/llm/chain', {
      chain: [{ provider: 'openai', model: 'gpt-4o-mini', base_url: receiverBase('openai') }],
    });
    assert.equal(res.statusCode, 422, res.body);
  });
});

test('the rule is in the OpenAPI document', async () => {
  const doc = (await svc.app.inject({ url: '/api/v1/openapi.json' })).json();
  const schemas = doc.components.schemas;
  assert.match(
    schemas.LlmConfig.properties.base_url.description,
    /only ever sent to the endpoint it was given for/,
  );
  assert.match(schemas.LlmKeyRequest.properties.base_url.description, /the key is sent only there/);
  assert.match(
    doc.paths['/api/v1/llm/keys'].put.description,
    /only ever sent to the base_url stored with it/,
  );
});

describe('the worker pairs keys itself (jobs recorded before the API checked)', () => {
  for (const [provider, stored] of [
    ['openai', false],
    ['anthropic', true],
  ] as const) {
    test(`${provider} with ${stored ? "the tenant's stored key" : "the operator's key"}: invalid_input, nothing sent`, async () => {
      const t = await tenant(`worker-${provider}`);
      if (stored) await t.storeKey(provider, `sk-tenant-old-${provider}`);
      const { job } = await startJob(svc.deps, {
        tenantId: t.tenantId,
        idempotencyKey: null,
        spec: {
          kind: 'extract',
          url: `${site.url}/item`,
          fetchMode: 'static',
          cleanerChain: [{ name: 'markdown' }],
          schema: normalizeSchema({ name: 'string', price: 'number' }),
          captureDebug: false,
          llm: { provider, model: modelOf(provider), baseUrl: receiverBase(provider), hasKey: false },
        },
      });
      const done = await awaitJob(svc.deps, job, 60_000);
      assert.equal(done.status, 'failed');
      assert.equal(done.error_category, 'invalid_input');
      assert.match(done.error_message ?? '', /base_url/);
      assert.deepEqual(receiver.seen, []);
    });
  }
});

describe('every model call passes the address policy', () => {
  const call = {
    system: 's',
    user: 'u',
    jsonSchema: { type: 'object' },
    schemaName: 'x',
    timeoutMs: 5000,
    allowPrivate: false,
  };

  test("ollama's default endpoint is not trusted; OLLAMA_BASE_URL, the operator's choice, is", async () => {
    const ollama = async (env: Record<string, string>) => {
      const config = loadConfig({ DEFAULT_LLM_CHAIN: 'ollama/qwen', ...env });
      const [entry] = await resolveChain({ config, tenantId: 't', jobId: 'j' });
      return entry;
    };
    const byDefault = await ollama({});
    assert.equal(byDefault?.baseUrl, 'http://127.0.0.1:11434/v1');
    assert.equal(byDefault?.operatorEndpoint, false);
    const configured = await ollama({ OLLAMA_BASE_URL: receiverBase('ollama') });
    assert.equal(configured?.baseUrl, receiverBase('ollama'));
    assert.equal(configured?.operatorEndpoint, true);
  });

  test('a model call to a loopback endpoint nobody trusted is ssrf_blocked and never connects', async () => {
    for (const provider of ['ollama', 'openai', 'anthropic']) {
      const target = {
        provider,
        model: modelOf(provider),
        apiKey: 'sk-would-leak',
        baseUrl: receiverBase(provider),
        temperature: 0,
        maxTokens: 100,
      };
      await assert.rejects(callModel(target, call), (err: unknown) => {
        assert.ok(err instanceof CategorizedError, String(err));
        assert.equal(err.category, 'ssrf_blocked', provider);
        return true;
      });
    }
    assert.deepEqual(receiver.seen, []);
  });
});
