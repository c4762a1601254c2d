// List prices: tokens × USD per million, provider prefixes ignored, unknown models free but flagged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { priceOf } from '../../shared/pricing.js';

test('tokens × the list price per million, input and output priced apart', () => {
  // gpt-4o-mini: $0.15 in, $0.60 out per million tokens.
  assert.deepEqual(priceOf('gpt-4o-mini', 1_000_000, 0), { llm_cost_usd: 0.15, price_known: true });
  assert.deepEqual(priceOf('gpt-4o-mini', 0, 1_000_000), { llm_cost_usd: 0.6, price_known: true });
  assert.deepEqual(priceOf('gpt-4o-mini', 1000, 200), { llm_cost_usd: 0.00027, price_known: true });
  // claude-sonnet-4-5: $3 in, $15 out.
  assert.deepEqual(priceOf('claude-sonnet-4-5', 2000, 500), { llm_cost_usd: 0.0135, price_known: true });
});

test('no tokens cost nothing, even for a known model', () => {
  assert.deepEqual(priceOf('gpt-4o', 0, 0), { llm_cost_usd: 0, price_known: true });
});

test('a provider prefix (OpenRouter style) is ignored', () => {
  assert.deepEqual(priceOf('openai/gpt-4o', 1000, 1000), priceOf('gpt-4o', 1000, 1000));
  assert.equal(priceOf('openai/gpt-4o', 1000, 1000).llm_cost_usd, 0.0125);
  assert.equal(priceOf('openrouter/anthropic/claude-haiku-4-5', 1000, 0).llm_cost_usd, 0.001);
});

test('rounded to a billionth of a dollar, without floating-point noise', () => {
  // 3 × 0.1 / 1e6 is 3.0000000000000004e-7 in plain floating point.
  assert.equal(priceOf('gpt-4.1-nano', 3, 0).llm_cost_usd, 3e-7);
  assert.equal(priceOf('gpt-5-nano', 1, 0).llm_cost_usd, 5e-8);
  assert.equal(priceOf('gpt-5-nano', 1, 1).llm_cost_usd, 4.5e-7);
});

test('an unknown model costs 0 and says its price is unknown', () => {
  assert.deepEqual(priceOf('llama3.1:8b', 5000, 5000), { llm_cost_usd: 0, price_known: false });
  assert.deepEqual(priceOf('ollama/llama3', 5000, 5000), { llm_cost_usd: 0, price_known: false });
  assert.deepEqual(priceOf('', 1, 1), { llm_cost_usd: 0, price_known: false });
});
