import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, beforeEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type FakeLlmServer, startFakeLlmServer } from './fake-llm-server.js';

const PRODUCT_PAGE = '# Blue Widget\n\nPrice: $19.99\nIn stock: yes';
const PRODUCT_SCHEMA = {
  type: 'object' as const,
  properties: { title: { type: 'string' }, price: { type: 'number' }, in_stock: { type: 'boolean' } },
  required: ['title', 'price', 'in_stock'],
  additionalProperties: false,
};
const PRODUCT = { title: 'Blue Widget', price: 19.99, in_stock: true };

let server: FakeLlmServer;
let openai: OpenAI;
let anthropic: Anthropic;

before(async () => {
  server = await startFakeLlmServer();
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseUrl, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
});

after(async () => {
  await server.close();
});

beforeEach(() => {
  server.reset();
});

function extractWithOpenAI(content: string, model = 'gpt-test', client = openai) {
  return client.chat.completions.create({
    model,
    messages: [
      { role: 'system', content: 'Extract the product from the page.' },
      { role: 'user', content },
    ],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'product', schema: PRODUCT_SCHEMA, strict: true },
    },
  });
}

function extractWithAnthropic(content: string, model = 'claude-test', client = anthropic) {
  return client.messages.create({
    model,
    max_tokens: 1024,
    messages: [{ role: 'user', content }],
    tools: [{ name: 'record_product', description: 'Record the product', input_schema: PRODUCT_SCHEMA }],
    tool_choice: { type: 'tool', name: 'record_product' },
  });
}

function contentOf(completion: OpenAI.Chat.Completions.ChatCompletion): string {
  const content = completion.choices[0]?.message.content;
  assert.equal(typeof content, 'string');
  return content as string;
}

function toolInputOf(message: Anthropic.Message): unknown {
  const block = message.content[0];
  assert.equal(block?.type, 'tool_use');
  return block?.type === 'tool_use' ? block.input : undefined;
}

function textOf(message: Anthropic.Message): string {
  const block = message.content[0];
  assert.equal(block?.type, 'text');
  return block?.type === 'text' ? block.text : '';
}

async function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

// --- Answers -------------------------------------------------------------------------------------------

test('openai json_schema: answers from the page content, shaped like a real chat completion', async () => {
  const completion = await extractWithOpenAI(PRODUCT_PAGE);

  assert.deepEqual(JSON.parse(contentOf(completion)), PRODUCT);
  assert.match(completion.id, /^chatcmpl-/);
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.model, 'gpt-test');
  assert.equal(typeof completion.created, 'number');
  assert.equal(completion.choices[0]?.finish_reason, 'stop');
  assert.equal(completion.choices[0]?.message.role, 'assistant');
});

test('usage: input = ceil(message chars / 4), output = ceil(output chars / 4), deterministic', async () => {
  const first = await extractWithOpenAI(PRODUCT_PAGE);
  const second = await extractWithOpenAI(PRODUCT_PAGE);
  const messageChars = 'Extract the product from the page.'.length + PRODUCT_PAGE.length;

  assert.ok(first.usage && first.usage.prompt_tokens > 0 && first.usage.completion_tokens > 0);
  assert.equal(first.usage.prompt_tokens, Math.ceil(messageChars / 4));
  assert.equal(first.usage.completion_tokens, Math.ceil(contentOf(first).length / 4));
  assert.equal(first.usage.total_tokens, first.usage.prompt_tokens + first.usage.completion_tokens);
  assert.deepEqual(second.usage, first.usage);
});

test('openai json_object: schema from a prompt fence; bold labels, tables, lists, nesting', async () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      price: { type: ['number', 'null'] },
      stock_count: { type: 'integer' },
      in_stock: { type: 'boolean' },
      brand: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      color: { type: 'string', enum: ['red', 'blue'] },
      features: { type: 'array', items: { type: 'string' } },
      tags: { type: 'array', items: { type: 'string' } },
      variants: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } } },
      },
      dimensions: { type: 'object', properties: { width: { type: 'number' }, height: { type: 'number' } } },
      reviews: { type: 'array', items: { type: 'string' } },
      warranty: { type: 'string' },
    },
  };
  const page = [
    '# Deluxe Lamp',
    '',
    '- **Price:** $1,299.00',
    '**Brand**: Lumo',
    '',
    '| Field | Value |',
    '| --- | --- |',
    '| Stock-Count | 42 units |',
    '| In Stock | Yes |',
    '| Color | Blue |',
    '',
    'Tags: office, desk; modern',
    '',
    '## Features',
    '- Dimmable',
    '- **USB** charging port',
    '',
    '## Variants',
    '- **Small**; Price: $99',
    '- Large lamp, Price: $149.50',
    '- XL',
    '  - Price: $199',
    '',
    '## Dimensions',
    'Width: 20 cm',
    'Height: 45.5 cm',
  ].join('\n');
  const prompt = `Return JSON matching this schema:\n\`\`\`json\n${JSON.stringify(schema, null, 2)}\n\`\`\``;

  const completion = await openai.chat.completions.create({
    model: 'gpt-test',
    messages: [
      { role: 'system', content: prompt },
      { role: 'user', content: page },
    ],
    response_format: { type: 'json_object' },
  });

  assert.deepEqual(JSON.parse(contentOf(completion)), {
    name: 'Deluxe Lamp',
    price: 1299,
    stock_count: 42,
    in_stock: true,
    brand: 'Lumo',
    color: 'blue',
    features: ['Dimmable', 'USB charging port'],
    tags: ['office', 'desk', 'modern'],
    variants: [
      { name: 'Small', price: 99 },
      { name: 'Large lamp', price: 149.5 },
      { name: 'XL', price: 199 },
    ],
    dimensions: { width: 20, height: 45.5 },
    reviews: [],
    warranty: null,
  });
});

test('schema in the user message: its fenced block is not mistaken for page content', async () => {
  const schema = { type: 'object', properties: { title: { type: 'string' }, sku: { type: 'string' } } };
  const user = `Schema:\n\`\`\`json\n${JSON.stringify(schema, null, 2)}\n\`\`\`\n\n${PRODUCT_PAGE}`;

  const completion = await openai.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content: user }],
  });

  assert.deepEqual(JSON.parse(contentOf(completion)), { title: 'Blue Widget', sku: null });
});

test('free-form prompt (no schema): answers with the first heading', async () => {
  const completion = await openai.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content: `What is this page about?\n\n${PRODUCT_PAGE}` }],
  });
  assert.deepEqual(JSON.parse(contentOf(completion)), { answer: 'Blue Widget' });

  const plain = await openai.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'x'.repeat(300) }],
  });
  assert.deepEqual(JSON.parse(contentOf(plain)), { answer: 'x'.repeat(200) });
});

test('anthropic forced tool: answers with a tool_use block, shaped like a real message', async () => {
  const message = await extractWithAnthropic(PRODUCT_PAGE);

  assert.deepEqual(toolInputOf(message), PRODUCT);
  assert.match(message.id, /^msg_/);
  assert.equal(message.type, 'message');
  assert.equal(message.role, 'assistant');
  assert.equal(message.model, 'claude-test');
  assert.equal(message.stop_reason, 'tool_use');
  const block = message.content[0];
  assert.equal(block?.type === 'tool_use' ? block.name : undefined, 'record_product');
  assert.equal(message.usage.input_tokens, Math.ceil(PRODUCT_PAGE.length / 4));
  assert.equal(message.usage.output_tokens, Math.ceil(JSON.stringify(PRODUCT).length / 4));
});

test('anthropic text answer: schema in the system prompt, JSON in a text block', async () => {
  const message = await anthropic.messages.create({
    model: 'claude-test',
    max_tokens: 1024,
    system: `Answer with JSON for this schema:\n\`\`\`json\n${JSON.stringify(PRODUCT_SCHEMA)}\n\`\`\``,
    messages: [{ role: 'user', content: [{ type: 'text', text: PRODUCT_PAGE }] }],
  });

  assert.deepEqual(JSON.parse(textOf(message)), PRODUCT);
  assert.equal(message.stop_reason, 'end_turn');
});

test('models list works with both SDKs', async () => {
  const openaiModels = await openai.models.list();
  assert.ok(openaiModels.data.some((model) => model.id === 'fake-model'));

  const anthropicModels = await anthropic.models.list();
  assert.ok(anthropicModels.data.some((model) => model.id === 'fake-model'));
});

// --- Auth ----------------------------------------------------------------------------------------------

test('401: bad keys raise AuthenticationError with the provider error shape', async () => {
  for (const apiKey of ['invalid', 'bad-key']) {
    const badOpenAI = new OpenAI({ apiKey, baseURL: server.openaiBaseUrl, maxRetries: 0 });
    await assert.rejects(extractWithOpenAI(PRODUCT_PAGE, 'gpt-test', badOpenAI), (err: unknown) => {
      assert.ok(err instanceof OpenAI.AuthenticationError);
      assert.equal(err.status, 401);
      assert.equal(err.code, 'invalid_api_key');
      return true;
    });

    const badAnthropic = new Anthropic({ apiKey, baseURL: server.anthropicBaseUrl, maxRetries: 0 });
    await assert.rejects(extractWithAnthropic(PRODUCT_PAGE, 'claude-test', badAnthropic), (err: unknown) => {
      assert.ok(err instanceof Anthropic.AuthenticationError);
      assert.deepEqual(err.error, {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
        request_id: err.requestID,
      });
      return true;
    });
  }
});

test('401: requests without any key', async () => {
  const openaiResponse = await postJson(`${server.openaiBaseUrl}/chat/completions`, {
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(openaiResponse.status, 401);
  const openaiBody = (await openaiResponse.json()) as { error: { type: string; code: string } };
  assert.equal(openaiBody.error.type, 'invalid_request_error');
  assert.equal(openaiBody.error.code, 'invalid_api_key');

  const anthropicResponse = await postJson(`${server.anthropicBaseUrl}/v1/messages`, {
    model: 'claude-test',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(anthropicResponse.status, 401);
  assert.deepEqual(((await anthropicResponse.json()) as { error: unknown }).error, {
    type: 'authentication_error',
    message: 'x-api-key header is required',
  });
});

test('anthropic: the documented x-api-key header is accepted and checked too', async () => {
  const request = (key: string) =>
    fetch(`${server.anthropicBaseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
  assert.equal((await request('sk-ant-good')).status, 200);
  assert.equal((await request('bad-key')).status, 401);
});

// --- Failures ------------------------------------------------------------------------------------------

test('enqueued 429 raises RateLimitError (with retry-after), then the next call succeeds', async () => {
  server.enqueueFailure({ kind: '429' });
  await assert.rejects(extractWithOpenAI(PRODUCT_PAGE), (err: unknown) => {
    assert.ok(err instanceof OpenAI.RateLimitError);
    assert.equal(err.headers.get('retry-after'), '1');
    assert.equal(err.code, 'rate_limit_exceeded');
    return true;
  });
  assert.deepEqual(JSON.parse(contentOf(await extractWithOpenAI(PRODUCT_PAGE))), PRODUCT);

  server.enqueueFailure({ kind: '429' });
  await assert.rejects(extractWithAnthropic(PRODUCT_PAGE), Anthropic.RateLimitError);
  assert.deepEqual(toolInputOf(await extractWithAnthropic(PRODUCT_PAGE)), PRODUCT);
});

test('enqueued failures: count, 500 and 401 map to the SDK error classes', async () => {
  server.enqueueFailure({ kind: '500', count: 2 });
  await assert.rejects(extractWithOpenAI(PRODUCT_PAGE), OpenAI.InternalServerError);
  await assert.rejects(extractWithAnthropic(PRODUCT_PAGE), Anthropic.InternalServerError);
  await extractWithOpenAI(PRODUCT_PAGE);

  server.enqueueFailure({ kind: '401' });
  await assert.rejects(extractWithAnthropic(PRODUCT_PAGE), Anthropic.AuthenticationError);
  await extractWithAnthropic(PRODUCT_PAGE);
});

test('enqueued failure scoped to a model only hits that model', async () => {
  server.enqueueFailure({ kind: '500', model: 'gpt-other' });
  await extractWithOpenAI(PRODUCT_PAGE, 'gpt-test');
  await assert.rejects(extractWithOpenAI(PRODUCT_PAGE, 'gpt-other'), OpenAI.InternalServerError);
  await extractWithOpenAI(PRODUCT_PAGE, 'gpt-other');
});

test('enqueueFailure rejects bad specs', () => {
  assert.throws(() => server.enqueueFailure({ kind: 'nope' as '429' }), TypeError);
  assert.throws(() => server.enqueueFailure({ kind: '429', count: 0 }), TypeError);
});

test('malformed: 200 whose content is not JSON', async () => {
  server.enqueueFailure({ kind: 'malformed', count: 2 });
  const completion = await extractWithOpenAI(PRODUCT_PAGE);
  assert.equal(completion.choices[0]?.finish_reason, 'stop');
  assert.throws(() => JSON.parse(contentOf(completion)), SyntaxError);

  // A forced tool call comes back as prose instead, which a tool-reading client cannot use either.
  const message = await extractWithAnthropic(PRODUCT_PAGE);
  assert.throws(() => JSON.parse(textOf(message)), SyntaxError);
});

test('truncated: cut-off JSON with finish_reason length / stop_reason max_tokens', async () => {
  server.enqueueFailure({ kind: 'truncated', count: 2 });
  const completion = await extractWithOpenAI(PRODUCT_PAGE);
  assert.equal(completion.choices[0]?.finish_reason, 'length');
  const content = contentOf(completion);
  assert.ok(JSON.stringify(PRODUCT).startsWith(content));
  assert.throws(() => JSON.parse(content), SyntaxError);

  const message = await extractWithAnthropic(PRODUCT_PAGE);
  assert.equal(message.stop_reason, 'max_tokens');
});

test('invalid_schema: valid JSON with every property of the wrong type', async () => {
  server.enqueueFailure({ kind: 'invalid_schema', count: 2 });
  const answer = JSON.parse(contentOf(await extractWithOpenAI(PRODUCT_PAGE))) as Record<string, unknown>;
  assert.deepEqual(Object.keys(answer).sort(), ['in_stock', 'price', 'title']);
  for (const value of Object.values(answer)) assert.deepEqual(value, { unexpected: true });

  const input = toolInputOf(await extractWithAnthropic(PRODUCT_PAGE)) as Record<string, unknown>;
  assert.equal(typeof input.price, 'object');
});

test('model-name directives: fake-<kind> always fails that way, fake-slow-<ms> answers late', async () => {
  for (let i = 0; i < 2; i++) {
    await assert.rejects(extractWithOpenAI(PRODUCT_PAGE, 'fake-429'), OpenAI.RateLimitError);
  }
  await assert.rejects(extractWithAnthropic(PRODUCT_PAGE, 'fake-500'), Anthropic.InternalServerError);
  await assert.rejects(extractWithOpenAI(PRODUCT_PAGE, 'fake-401'), OpenAI.AuthenticationError);

  const malformed = await extractWithOpenAI(PRODUCT_PAGE, 'fake-malformed');
  assert.throws(() => JSON.parse(contentOf(malformed)), SyntaxError);
  const truncated = await extractWithOpenAI(PRODUCT_PAGE, 'fake-truncated');
  assert.equal(truncated.choices[0]?.finish_reason, 'length');
  const invalid = await extractWithOpenAI(PRODUCT_PAGE, 'fake-invalid_schema');
  assert.deepEqual((JSON.parse(contentOf(invalid)) as { title: unknown }).title, { unexpected: true });

  const started = Date.now();
  const slow = await extractWithOpenAI(PRODUCT_PAGE, 'fake-slow-150');
  assert.ok(Date.now() - started >= 140, 'answered too early');
  assert.deepEqual(JSON.parse(contentOf(slow)), PRODUCT);

  assert.deepEqual(JSON.parse(contentOf(await extractWithOpenAI(PRODUCT_PAGE, 'fake-model'))), PRODUCT);
});

test('timeout: the request hangs until the client gives up (APIConnectionTimeoutError)', async () => {
  const impatientOpenAI = new OpenAI({
    apiKey: 'k',
    baseURL: server.openaiBaseUrl,
    maxRetries: 0,
    timeout: 300,
  });
  server.enqueueFailure({ kind: 'timeout' });
  const started = Date.now();
  await assert.rejects(
    extractWithOpenAI(PRODUCT_PAGE, 'gpt-test', impatientOpenAI),
    OpenAI.APIConnectionTimeoutError,
  );
  assert.ok(Date.now() - started >= 250);

  const impatientAnthropic = new Anthropic({
    apiKey: 'k',
    baseURL: server.anthropicBaseUrl,
    maxRetries: 0,
    timeout: 300,
  });
  await assert.rejects(
    extractWithAnthropic(PRODUCT_PAGE, 'fake-timeout', impatientAnthropic),
    Anthropic.APIConnectionTimeoutError,
  );
});

test('close() releases requests held open by a timeout failure', async () => {
  const own = await startFakeLlmServer();
  own.enqueueFailure({ kind: 'timeout' });
  const client = new OpenAI({ apiKey: 'k', baseURL: own.openaiBaseUrl, maxRetries: 0 });
  const pending = extractWithOpenAI(PRODUCT_PAGE, 'gpt-test', client);
  const outcome = pending.then(
    () => 'answered',
    (err: unknown) => err,
  );
  while (own.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));

  const started = Date.now();
  await own.close();
  assert.ok(Date.now() - started < 1000, 'close() waited for the held request');
  assert.ok((await outcome) instanceof OpenAI.APIConnectionError);
});

test('latencyMs option delays every answer', async () => {
  const own = await startFakeLlmServer({ latencyMs: 120 });
  try {
    const client = new OpenAI({ apiKey: 'k', baseURL: own.openaiBaseUrl, maxRetries: 0 });
    const started = Date.now();
    await extractWithOpenAI(PRODUCT_PAGE, 'gpt-test', client);
    assert.ok(Date.now() - started >= 110);
  } finally {
    await own.close();
  }
});

// --- Recording and control -----------------------------------------------------------------------------

test('requests are recorded with credentials redacted', async () => {
  await extractWithOpenAI(PRODUCT_PAGE);
  await extractWithAnthropic(PRODUCT_PAGE);

  assert.equal(server.requests.length, 2);
  const [openaiRequest, anthropicRequest] = server.requests;
  assert.equal(openaiRequest?.api, 'openai');
  assert.equal(openaiRequest?.path, '/v1/chat/completions');
  assert.equal(openaiRequest?.model, 'gpt-test');
  assert.equal(openaiRequest?.headers.authorization, '***');
  assert.equal((openaiRequest?.body as { model?: string } | undefined)?.model, 'gpt-test');
  assert.ok(!Number.isNaN(Date.parse(openaiRequest?.receivedAt ?? '')));

  assert.equal(anthropicRequest?.api, 'anthropic');
  assert.equal(anthropicRequest?.path, '/v1/messages');
  assert.equal(anthropicRequest?.model, 'claude-test');
  // @anthropic-ai/sdk 1.x sends its API key as a Bearer token rather than in x-api-key.
  assert.equal(anthropicRequest?.headers.authorization ?? anthropicRequest?.headers['x-api-key'], '***');
  assert.ok(!JSON.stringify(server.requests).includes('sk-ant-test'));
});

test('control endpoints: enqueue failures, list requests, reset', async () => {
  const queued = await postJson(`${server.url}/__control/failures`, {
    kind: '429',
    count: 1,
    model: 'gpt-test',
  });
  assert.equal(queued.status, 200);
  await assert.rejects(extractWithOpenAI(PRODUCT_PAGE), OpenAI.RateLimitError);
  await extractWithOpenAI(PRODUCT_PAGE);

  const listed = await fetch(`${server.url}/__control/requests`);
  const requests = (await listed.json()) as { api: string; model: string; headers: Record<string, string> }[];
  assert.equal(requests.length, 2);
  assert.equal(requests[0]?.api, 'openai');
  assert.equal(requests[0]?.headers.authorization, '***');

  assert.equal((await postJson(`${server.url}/__control/failures`, { kind: 'bogus' })).status, 400);

  await postJson(`${server.url}/__control/failures`, { kind: '500' });
  assert.equal((await postJson(`${server.url}/__control/reset`, {})).status, 200);
  assert.equal(server.requests.length, 0);
  await extractWithOpenAI(PRODUCT_PAGE); // the queued 500 was dropped by the reset
});

test('unknown paths and invalid bodies get provider-shaped 404 / 400 errors', async () => {
  await assert.rejects(openai.post('/nowhere', { body: {} }), OpenAI.NotFoundError);
  await assert.rejects(
    anthropic.messages.create({
      model: 'claude-test',
      messages: [],
    } as unknown as Anthropic.MessageCreateParamsNonStreaming),
    Anthropic.BadRequestError,
  );
});

test('runs standalone: prints its URL and serves', async () => {
  const script = fileURLToPath(new URL('./fake-llm-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, FAKE_LLM_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [firstOutput] = (await once(child.stdout, 'data')) as [Buffer];
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(firstOutput.toString())?.[0];
    assert.ok(url, `no URL in: ${firstOutput.toString()}`);
    const client = new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
    assert.deepEqual(
      JSON.parse(contentOf(await extractWithOpenAI(PRODUCT_PAGE, 'gpt-test', client))),
      PRODUCT,
    );
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
