// The operator's model chain from configuration, and which failures move on to the next entry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveChain, shouldFallBack } from '../../activities/extraction/llm/chain.js';
import { loadConfig } from '../../shared/config.js';
import { type CategorizedError, ERROR_CATEGORIES, type ErrorCategory } from '../../shared/errors.js';

describe('resolveChain', () => {
  test('without tenant settings: the default chain in order, on the operator keys, keyless providers kept', async () => {
    const config = loadConfig({
      DEFAULT_LLM_CHAIN:
        ' openai/gpt-4o-mini , anthropic/claude-haiku-4-5,openrouter/meta/llama-3,ollama/qwen',
      OPENAI_API_KEY: 'sk-op',
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      ANTHROPIC_API_KEY: 'sk-ant-op',
      ANTHROPIC_BASE_URL: '',
    });
    const common = { temperature: 0, maxTokens: 4096, isByok: false };
    assert.deepEqual(await resolveChain({ config, tenantId: 't', jobId: 'j' }), [
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        apiKey: 'sk-op',
        baseUrl: 'http://127.0.0.1:1/v1',
        operatorEndpoint: true, // the operator's own endpoint may be private
        position: 0,
        ...common,
      },
      {
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        apiKey: 'sk-ant-op',
        baseUrl: 'https://api.anthropic.com', // the official endpoint, never the SDK's environment default
        operatorEndpoint: false,
        position: 1,
        ...common,
      },
      // openrouter (position 2) needs a key nobody configured: skipped.
      {
        provider: 'ollama',
        model: 'qwen',
        apiKey: undefined,
        baseUrl: 'http://127.0.0.1:11434/v1',
        operatorEndpoint: false, // ollama's default passes the address policy
        position: 3,
        ...common,
      },
    ]);
  });

  test('an empty chain is no_models; a malformed entry is a configuration error', async () => {
    const ctx = (chain: string) => ({
      config: loadConfig({ DEFAULT_LLM_CHAIN: chain }),
      tenantId: 't',
      jobId: 'j',
    });
    await assert.rejects(resolveChain(ctx(' , ')), (err: CategorizedError) => err.category === 'no_models');
    await assert.rejects(resolveChain(ctx('gpt-4o-mini')), /provider\/model/);
    await assert.rejects(resolveChain(ctx('openai/')), /provider\/model/);
  });
});

describe('shouldFallBack', () => {
  test('falls back on rate limits, provider errors, timeouts, unsupported models, truncation, bad output', () => {
    const fallBack: ErrorCategory[] = [
      'rate_limit',
      'quota_exceeded',
      'provider_error',
      'timeout',
      'model_unsupported',
      'content_too_long',
      'llm_truncation',
      'parse_error',
      'schema_mismatch',
    ];
    for (const category of ERROR_CATEGORIES) {
      assert.equal(shouldFallBack(category), fallBack.includes(category), category);
    }
  });

  test('stops on invalid keys and fetch errors', () => {
    for (const category of ['invalid_key', 'fetch_error', 'fetch_timeout', 'invalid_input'] as const) {
      assert.equal(shouldFallBack(category), false, category);
    }
  });
});
