// Model calls through the real OpenAI and Anthropic SDKs against loopback servers only: the fake model
// server for answers and injected failures, and a tiny canned-response server for exact usage reports and
// error bodies the fake does not produce.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { parseAnswer, SYSTEM_PROMPT, userPrompt } from '../../activities/extraction/llm/prompt.js';
import { callModel, type ModelCall, type ModelTarget } from '../../activities/extraction/llm/providers.js';
import { CategorizedError, type ErrorCategory } from '../../shared/errors.js';
import { normalizeSchema, toJsonSchema } from '../../shared/schema-input.js';
import { type FakeLlmServer, startFakeLlmServer } from '../support/fake-llm-server.js';

const PAGE = '# Blue Widget\n\nPrice: $19.99\nIn stock: yes';
const SCHEMA = normalizeSchema({ title: 'string', price: 'number', in_stock: 'boolean' });
const JSON_SCHEMA = toJsonSchema(SCHEMA);
const PRODUCT = { title: 'Blue Widget', price: 19.99, in_stock: true };

const CALL: ModelCall = {
  system: SYSTEM_PROMPT,
  user: userPrompt({ url: 'https://shop.example/w', schema: SCHEMA, jsonSchema: JSON_SCHEMA, content: PAGE }),
  jsonSchema: JSON_SCHEMA,
  schemaName: 'extraction',
  timeoutMs: 5000,
};

const PROVIDERS = ['openai', 'anthropic'] as const;

let fake: FakeLlmServer;

before(async () => {
  fake = await startFakeLlmServer();
});
after(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

function target(provider: string, model: string, extra: Partial<ModelTarget> = {}): ModelTarget {
  const baseUrl = provider === 'anthropic' ? fake.anthropicBaseUrl : fake.openaiBaseUrl;
  // The loopback servers stand for the operator's endpoint, the only kind a call may reach at a private address.
  const common = { apiKey: 'sk-test', baseUrl, operatorEndpoint: true, temperature: 0, maxTokens: 512 };
  return { provider, model, ...common, ...extra };
}

/** Runs the call and returns its CategorizedError (failing when it succeeds or throws anything else). */
async function failure(t: ModelTarget, call: ModelCall = CALL): Promise<CategorizedError> {
  try {
    await callModel(t, call);
  } catch (err) {
    assert.ok(err instanceof CategorizedError, `expected CategorizedError, got ${String(err)}`);
    return err;
  }
  assert.fail('the call should have failed');
}

const body = (i = -1) => fake.requests.at(i)?.body as Record<string, any>;

describe('callModel: requests and answers', () => {
  test('openai: structured output as json_schema, SDK retries off, usage from the report', async () => {
    const answer = await callModel(
      target('openai', 'gpt-4o-mini', { temperature: 0.2, maxTokens: 300 }),
      CALL,
    );
    assert.deepEqual(JSON.parse(answer.text), PRODUCT);
    assert.equal(answer.truncated, false);
    // The fake reports about four characters a token.
    assert.equal(answer.inputTokens, Math.ceil((CALL.system.length + CALL.user.length) / 4));
    assert.equal(answer.outputTokens, Math.ceil(answer.text.length / 4));

    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]?.path, '/v1/chat/completions');
    assert.equal(fake.requests[0]?.headers.authorization, '***');
    const sent = body();
    assert.equal(sent.model, 'gpt-4o-mini');
    assert.equal(sent.temperature, 0.2);
    assert.equal(sent.max_tokens, 300);
    assert.deepEqual(sent.messages, [
      { role: 'system', content: CALL.system },
      { role: 'user', content: CALL.user },
    ]);
    assert.deepEqual(sent.response_format, {
      type: 'json_schema',
      json_schema: { name: 'extraction', schema: JSON_SCHEMA, strict: false },
    });
  });

  test('openai: a free-form prompt asks for a JSON object', async () => {
    const schema = normalizeSchema('the product title');
    const jsonSchema = toJsonSchema(schema);
    const user = userPrompt({ url: 'https://shop.example/w', schema, jsonSchema, content: PAGE });
    const answer = await callModel(target('openai', 'gpt-4o-mini'), { ...CALL, user, jsonSchema });
    assert.deepEqual(body().response_format, { type: 'json_object' });
    assert.equal(typeof parseAnswer(answer.text), 'object');
  });

  test('anthropic: a forced tool carries the schema; its input is the answer', async () => {
    const answer = await callModel(target('anthropic', 'claude-haiku-4-5', { maxTokens: 700 }), CALL);
    assert.deepEqual(JSON.parse(answer.text), PRODUCT);
    assert.equal(answer.truncated, false);
    assert.equal(answer.inputTokens, Math.ceil((CALL.system.length + CALL.user.length) / 4));
    assert.ok(answer.outputTokens > 0);

    assert.equal(fake.requests[0]?.path, '/v1/messages');
    const sent = body();
    assert.equal(sent.model, 'claude-haiku-4-5');
    assert.equal(sent.max_tokens, 700);
    assert.equal(sent.system, CALL.system);
    assert.deepEqual(sent.messages, [{ role: 'user', content: CALL.user }]);
    assert.deepEqual(sent.tool_choice, { type: 'tool', name: 'record_extraction' });
    assert.equal(sent.tools.length, 1);
    assert.deepEqual(sent.tools[0].input_schema, JSON_SCHEMA);
  });

  test('OpenAI-compatible providers (ollama, openai_compatible) speak the chat completions API', async () => {
    for (const provider of ['ollama', 'openai_compatible', 'openrouter']) {
      const answer = await callModel(target(provider, 'llama3', { apiKey: undefined }), CALL);
      assert.deepEqual(JSON.parse(answer.text), PRODUCT, provider);
      assert.equal(fake.requests.at(-1)?.path, '/v1/chat/completions', provider);
    }
  });

  test('an unknown provider is model_unsupported, and nothing is sent', async () => {
    const err = await failure(target('sparkle-ai', 'm1'));
    assert.equal(err.category, 'model_unsupported');
    assert.match(err.message, /sparkle-ai/);
    assert.equal(fake.requests.length, 0);
  });

  for (const provider of PROVIDERS) {
    test(`${provider}: a reply cut off by the token limit is reported as truncated`, async () => {
      const answer = await callModel(target(provider, 'fake-truncated'), CALL);
      assert.equal(answer.truncated, true);
    });

    test(`${provider}: prose instead of JSON comes back as text that does not parse`, async () => {
      const answer = await callModel(target(provider, 'fake-malformed'), CALL);
      assert.equal(answer.truncated, false);
      assert.match(answer.text, /Blue Widget/);
      assert.throws(() => parseAnswer(answer.text), SyntaxError);
    });
  }
});

describe('callModel: provider failures map to error categories', () => {
  const CASES: { kind: '429' | '500' | '401'; category: ErrorCategory; retryable: boolean }[] = [
    { kind: '429', category: 'rate_limit', retryable: true },
    { kind: '500', category: 'provider_error', retryable: true },
    { kind: '401', category: 'invalid_key', retryable: false },
  ];

  for (const provider of PROVIDERS) {
    for (const { kind, category, retryable } of CASES) {
      test(`${provider} ${kind} → ${category}, sent once (the SDK does not retry)`, async () => {
        fake.enqueueFailure({ kind });
        const err = await failure(target(provider, 'claude-or-gpt'));
        assert.equal(err.category, category);
        assert.equal(err.retryable, retryable);
        assert.equal(fake.requests.length, 1);
        // The failure was used up: the next call answers.
        const answer = await callModel(target(provider, 'claude-or-gpt'), CALL);
        assert.deepEqual(JSON.parse(answer.text), PRODUCT);
      });
    }

    test(`${provider}: a rejected key is invalid_key`, async () => {
      const err = await failure(target(provider, 'fake-model', { apiKey: 'bad-key' }));
      assert.equal(err.category, 'invalid_key');
      assert.equal(err.retryable, false);
    });

    test(`${provider}: no answer within timeoutMs is timeout`, async () => {
      const started = Date.now();
      const err = await failure(target(provider, 'fake-timeout'), { ...CALL, timeoutMs: 250 });
      assert.equal(err.category, 'timeout');
      assert.equal(err.retryable, true);
      assert.ok(Date.now() - started < 4000, 'gave up near the timeout');
    });

    test(`${provider}: a failure queued for another model leaves this one alone`, async () => {
      fake.enqueueFailure({ kind: '500', model: 'other-model' });
      const answer = await callModel(target(provider, 'this-model'), CALL);
      assert.deepEqual(JSON.parse(answer.text), PRODUCT);
      assert.equal((await failure(target(provider, 'other-model'))).category, 'provider_error');
    });

    test(`${provider}: an endpoint that is not there (404) is model_unsupported`, async () => {
      const t = target(provider, 'fake-model');
      const err = await failure({ ...t, baseUrl: `${t.baseUrl}/nowhere` });
      assert.equal(err.category, 'model_unsupported');
    });
  }

  test('nothing listening is provider_error (retryable)', async () => {
    const closed = await cannedServer(() => ({ status: 200, body: {} }));
    await closed.close();
    for (const provider of PROVIDERS) {
      const err = await failure({ ...target(provider, 'm'), baseUrl: closed.url });
      assert.equal(err.category, 'provider_error', provider);
      assert.equal(err.retryable, true);
    }
  });
});

// --- Canned responses ------------------------------------------------------------------------------------

interface Canned {
  status: number;
  body: unknown;
}

/** A loopback server that answers every request with what `reply` returns for it. */
async function cannedServer(reply: (req: IncomingMessage) => Canned) {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const { status, body: payload } = reply(req);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const openaiError = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});
const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

describe('callModel: usage reports and error bodies, from canned responses', () => {
  let canned: Canned;
  let server: Awaited<ReturnType<typeof cannedServer>>;
  before(async () => {
    server = await cannedServer(() => canned);
  });
  after(async () => {
    await server.close();
  });
  afterEach(() => {
    canned = { status: 500, body: {} };
  });

  const openaiTarget = () => target('openai', 'gpt-4o-mini', { baseUrl: `${server.url}/v1` });
  const anthropicTarget = () => target('anthropic', 'claude-haiku-4-5', { baseUrl: server.url });

  test('openai: token counts are the provider-reported usage', async () => {
    canned = {
      status: 200,
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: '{"a":1}' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 },
      },
    };
    assert.deepEqual(await callModel(openaiTarget(), CALL), {
      text: '{"a":1}',
      inputTokens: 1234,
      outputTokens: 56,
      truncated: true,
    });
  });

  test('openai: no usage report counts as zero tokens, no choice as empty text', async () => {
    canned = {
      status: 200,
      body: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [] },
    };
    assert.deepEqual(await callModel(openaiTarget(), CALL), {
      text: '',
      inputTokens: 0,
      outputTokens: 0,
      truncated: false,
    });
  });

  test('anthropic: token counts are the provider-reported usage; text blocks when no tool was used', async () => {
    canned = {
      status: 200,
      body: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [
          { type: 'text', text: '{"a":' },
          { type: 'text', text: '2}' },
        ],
        stop_reason: 'max_tokens',
        stop_sequence: null,
        usage: { input_tokens: 4321, output_tokens: 65 },
      },
    };
    assert.deepEqual(await callModel(anthropicTarget(), CALL), {
      text: '{"a":2}',
      inputTokens: 4321,
      outputTokens: 65,
      truncated: true,
    });
  });

  test('openai: a 429 for an exhausted quota is quota_exceeded (not retryable), unlike a rate limit', async () => {
    canned = {
      status: 429,
      body: openaiError('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota'),
    };
    const quota = await failure(openaiTarget());
    assert.equal(quota.category, 'quota_exceeded');
    assert.equal(quota.retryable, false);

    canned = { status: 429, body: openaiError('Rate limit reached', 'requests', 'rate_limit_exceeded') };
    const rate = await failure(openaiTarget());
    assert.equal(rate.category, 'rate_limit');
    assert.equal(rate.retryable, true);
  });

  test('a 402 (out of credit) is quota_exceeded for both APIs', async () => {
    canned = { status: 402, body: anthropicError('billing_error', 'Your credit balance is too low') };
    assert.equal((await failure(anthropicTarget())).category, 'quota_exceeded');
    canned = { status: 402, body: openaiError('Insufficient credits', 'payment_required', null) };
    assert.equal((await failure(openaiTarget())).category, 'quota_exceeded');
  });

  test('a 400 about the context length is content_too_long; other 400s are provider_error', async () => {
    canned = {
      status: 400,
      body: openaiError(
        "This model's maximum context length is 128000 tokens.",
        'invalid_request_error',
        'context_length_exceeded',
      ),
    };
    const long = await failure(openaiTarget());
    assert.equal(long.category, 'content_too_long');
    assert.equal(long.retryable, false);

    canned = {
      status: 400,
      body: anthropicError('invalid_request_error', 'prompt is too long: 250000 tokens'),
    };
    assert.equal((await failure(anthropicTarget())).category, 'content_too_long');

    canned = {
      status: 400,
      body: openaiError('Invalid value for temperature', 'invalid_request_error', null),
    };
    assert.equal((await failure(openaiTarget())).category, 'provider_error');
  });

  test('403 is invalid_key; 529 overloaded is provider_error', async () => {
    canned = { status: 403, body: anthropicError('permission_error', 'not allowed') };
    assert.equal((await failure(anthropicTarget())).category, 'invalid_key');
    canned = { status: 529, body: anthropicError('overloaded_error', 'Overloaded') };
    const overloaded = await failure(anthropicTarget());
    assert.equal(overloaded.category, 'provider_error');
    assert.equal(overloaded.retryable, true);
  });
});
