// Where parse_error, schema_mismatch and llm_truncation come from: the extraction activity's validate /
// retry-once / fall-back loop, run against the fake model server with in-memory stores (no database).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import type { StoreDeps } from '../../activities/common/deps.js';
import { makeExtractor } from '../../activities/extraction/extract-with-model.js';
import type { ExtractWithModelInput } from '../../activities/extraction/extraction-types.js';
import { loadConfig } from '../../shared/config.js';
import type { JobEvent } from '../../shared/events.js';
import { priceOf } from '../../shared/pricing.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import type { ContentStore } from '../../shared/store/contents.js';
import type { EventStore } from '../../shared/store/event-store.js';
import { type FakeLlmServer, startFakeLlmServer } from '../support/fake-llm-server.js';

const PAGE = '# Blue Widget\n\nPrice: $19.99\nIn stock: yes';
const PRODUCT = { title: 'Blue Widget', price: 19.99, in_stock: true };

let fake: FakeLlmServer;
let appended: JobEvent[];

before(async () => {
  fake = await startFakeLlmServer();
});
after(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  appended = [];
});

function extractor(chain: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    DEFAULT_LLM_CHAIN: chain,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.openaiBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: fake.anthropicBaseUrl,
    LLM_TIMEOUT_MS: '2000',
    ...env,
  });
  const contents = {} as ContentStore;
  const events = {
    append: async (batch: readonly JobEvent[]) => {
      appended.push(...batch);
    },
  } as unknown as EventStore;
  const deps: StoreDeps = { config, contents, events };
  const { answerFromContent, recordPage } = makeExtractor(deps);
  // What extractPage does with a page in hand: the answer, then its record.
  return async (input: ExtractWithModelInput) => {
    const { page, result } = await answerFromContent(input, PAGE, {});
    await recordPage(input, page, 'awaited');
    return result;
  };
}

const INPUT: ExtractWithModelInput = {
  jobId: 'job_1',
  tenantId: 'ten_1',
  pageId: 'page_1',
  contentId: 'content_1',
  url: 'https://shop.example/w',
  depth: 0,
  parentUrl: null,
  schema: normalizeSchema({ title: 'string', price: 'number', in_stock: 'boolean' }),
  fetch: { finalUrl: 'https://shop.example/w', fetchMode: 'static', fetchedAt: 'T', durationMs: 10 },
  cleanDurationMs: 1,
  eventSeq: 3,
  eventId: 'evt_3',
};

/** Runs the activity and returns its ApplicationFailure (the category is the failure type). */
async function failureOf(run: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await run;
  } catch (err) {
    assert.ok(err instanceof ApplicationFailure, `expected ApplicationFailure, got ${String(err)}`);
    return err;
  }
  assert.fail('the extraction should have failed');
}

const models = () => fake.requests.map((r) => r.model);

describe('a page answered by the model chain', () => {
  test('records the answer with the provider-reported tokens and their list price', async () => {
    const result = await extractor('openai/gpt-4o-mini')(INPUT);
    assert.equal(appended.length, 1);
    const event = appended[0]!;
    assert.equal(event.type, 'page.completed');
    assert.equal(event.seq, 3);
    if (event.type !== 'page.completed') return;
    assert.deepEqual(event.data.data, PRODUCT);
    assert.equal(event.data.provider, 'openai');
    assert.equal(event.data.fallback_position, 0);
    assert.ok(result.inputTokens > 0 && result.outputTokens > 0);
    assert.equal(event.data.usage.input_tokens, result.inputTokens);
    assert.equal(event.data.usage.output_tokens, result.outputTokens);
    const price = priceOf('gpt-4o-mini', result.inputTokens, result.outputTokens);
    assert.equal(event.data.usage.llm_cost_usd, price.llm_cost_usd);
    assert.ok(price.llm_cost_usd > 0);
    assert.equal(event.data.price_known, true);
  });

  test('the prompt sent names the format the cleaner chain produced; markdown when not said', async () => {
    const userMessage = () => {
      const body = fake.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
      return body.messages.find((m) => m.role === 'user')?.content ?? '';
    };
    await extractor('openai/gpt-4o-mini')(INPUT);
    assert.match(userMessage(), /Page content \(markdown\)/);
    await extractor('openai/gpt-4o-mini')({ ...INPUT, contentFormat: 'text' });
    assert.match(userMessage(), /Page content \(text\)/);
    assert.doesNotMatch(userMessage(), /Page content \(markdown\)/);
  });

  test('a truncated answer is llm_truncation, tried once per entry', async () => {
    const failure = await failureOf(extractor('openai/fake-truncated')(INPUT));
    assert.equal(failure.type, 'llm_truncation');
    assert.deepEqual(models(), ['fake-truncated']);
    assert.equal(appended.length, 0);
  });

  test('prose twice is parse_error; the retry tells the model why', async () => {
    const failure = await failureOf(extractor('anthropic/fake-malformed')(INPUT));
    assert.equal(failure.type, 'parse_error');
    assert.equal(fake.requests.length, 2);
    const retryPrompt = JSON.stringify(fake.requests[1]?.body);
    assert.match(retryPrompt, /Your previous answer was not valid: it was not parseable JSON/);
  });

  test('one bad answer is retried and the tokens of both rounds are counted', async () => {
    const clean = await extractor('openai/gpt-4o-mini')(INPUT);
    fake.reset();
    fake.enqueueFailure({ kind: 'malformed' });
    const retried = await extractor('openai/gpt-4o-mini')(INPUT);
    assert.equal(fake.requests.length, 2);
    assert.ok(retried.inputTokens >= clean.inputTokens * 2, 'both prompts counted');
    assert.ok(retried.outputTokens > clean.outputTokens, 'both answers counted');
  });

  test('answers that break the schema twice are schema_mismatch naming the problem', async () => {
    const failure = await failureOf(extractor('openai/fake-invalid_schema')(INPUT));
    assert.equal(failure.type, 'schema_mismatch');
    assert.match(failure.message, /\/title must be string,null/);
    assert.equal(fake.requests.length, 2);
  });

  test('falls back along the chain and records which entry answered', async () => {
    const result = await extractor('openai/fake-429,openai/fake-truncated,anthropic/claude-haiku-4-5')(INPUT);
    assert.deepEqual(models(), ['fake-429', 'fake-truncated', 'claude-haiku-4-5']);
    assert.equal(result.provider, 'anthropic');
    assert.equal(result.fallbackPosition, 2);
    const event = appended[0]!;
    assert.ok(event.type === 'page.completed' && event.data.fallback_position === 2);
  });

  test('an invalid key stops the chain', async () => {
    const failure = await failureOf(extractor('openai/fake-401,anthropic/claude-haiku-4-5')(INPUT));
    assert.equal(failure.type, 'invalid_key');
    assert.equal(failure.nonRetryable, true);
    assert.deepEqual(models(), ['fake-401']);
  });

  test('when every entry fails, the last failure is reported', async () => {
    const failure = await failureOf(extractor('openai/fake-429,anthropic/fake-500')(INPUT));
    assert.equal(failure.type, 'provider_error');
    assert.equal(fake.requests.length, 2);
  });

  test('no configured model is no_models', async () => {
    const failure = await failureOf(extractor(' ')(INPUT));
    assert.equal(failure.type, 'no_models');
    assert.equal(fake.requests.length, 0);
  });
});
