// Which models to try, in order, and with which keys. This slice knows the operator's default chain
// (DEFAULT_LLM_CHAIN with the SDKs' own key variables); tenant chains and BYOK plug in here.
import { type Config, parseChain } from '../../shared/config.js';
import type { ErrorCategory } from '../../shared/errors.js';
import type { ModelTarget } from './providers.js';

export interface ResolvedEntry extends ModelTarget {
  position: number;
  isByok: boolean;
}

export function operatorChain(config: Config): ResolvedEntry[] {
  return parseChain(config.DEFAULT_LLM_CHAIN).map((entry, position) => ({
    ...entry,
    ...operatorCredentials(config, entry.provider),
    temperature: 0,
    maxTokens: 4096,
    position,
    isByok: false,
  }));
}

function operatorCredentials(config: Config, provider: string): { apiKey?: string; baseUrl?: string } {
  if (provider === 'openai') return { apiKey: config.OPENAI_API_KEY, baseUrl: config.OPENAI_BASE_URL };
  if (provider === 'anthropic')
    return { apiKey: config.ANTHROPIC_API_KEY, baseUrl: config.ANTHROPIC_BASE_URL };
  return {};
}

/** Failures after which the next chain entry is tried; others (invalid key, …) end the attempt. */
const FALL_THROUGH: ReadonlySet<ErrorCategory> = new Set([
  'rate_limit',
  'quota_exceeded',
  'provider_error',
  'timeout',
  'model_unsupported',
  'content_too_long',
  'llm_truncation',
  'parse_error',
  'schema_mismatch',
]);

export const shouldFallBack = (category: ErrorCategory) => FALL_THROUGH.has(category);
