// Which models to try, in order, and with which keys:
// a request's llm_config (one entry), else the tenant's chain with the tenant's keys (BYOK), else the
// operator's DEFAULT_LLM_CHAIN (on the tenant's own key for a provider when stored, else the keys from the
// environment). Keys are looked up here, in the activity, by reference: they never travel through workflow
// inputs or history. Each key goes only to the endpoint it was given for (shared/llm/key-pairing.ts).
import { budgetOfDetails } from '../../../shared/budget.js';
import { type Config, parseChain } from '../../../shared/config.js';
import { CategorizedError, type ErrorCategory } from '../../../shared/errors.js';
import { providerInfo } from '../../../shared/llm/catalog.js';
import {
  type KeySource,
  operatorCredentials,
  pairKey,
  tenantSettings,
} from '../../../shared/llm/key-pairing.js';
import type { JobLlmConfig } from '../../../shared/schemas/job-spec.js';
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_TEMPERATURE,
  type LlmSettingsStore,
} from '../../../shared/store/llm-settings.js';
import type { ModelTarget } from './providers.js';

export interface ResolvedEntry extends ModelTarget {
  position: number;
  isByok: boolean;
}

export interface ChainContext {
  config: Config;
  llm?: LlmSettingsStore;
  tenantId: string;
  jobId: string;
  request?: JobLlmConfig;
}

/** The tenant's stored key document for a provider, when it takes effect (tenantSettings). */
async function storedKey(ctx: ChainContext, provider: string) {
  const doc = ctx.llm ? await ctx.llm.getKey(ctx.tenantId, provider) : null;
  return tenantSettings(doc) ? doc : null;
}

interface EntrySettings {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  position: number;
}

/**
 * One chain entry with its key and endpoint, paired by pairKey: a key only ever goes to the endpoint it was
 * given for. A request whose base_url no key was given for is refused (invalid_input) before any call, also
 * for jobs recorded before the API checked it; a chain entry that cannot be paired is skipped.
 */
async function entryFor(
  ctx: ChainContext,
  e: EntrySettings,
  request?: { apiKey?: string; baseUrl?: string },
): Promise<ResolvedEntry | null> {
  const info = providerInfo(e.provider);
  if (!info || info.status === 'decommissioned') return null;
  const doc = await storedKey(ctx, e.provider);
  const operator = operatorCredentials(ctx.config, e.provider);
  const pairing = pairKey({
    provider: e.provider,
    requestBaseUrl: request?.baseUrl,
    hasRequestKey: Boolean(request?.apiKey),
    tenant: tenantSettings(doc),
    operator: { hasKey: Boolean(operator.apiKey), baseUrl: operator.baseUrl },
  });
  if ('refused' in pairing) {
    if (request) throw new CategorizedError('invalid_input', `llm_config.base_url: ${pairing.refused}`);
    return null;
  }
  const keys: Record<KeySource, () => Promise<string | undefined>> = {
    request: async () => request?.apiKey,
    tenant: async () => (doc && (await ctx.llm?.openKey(doc))) || undefined,
    operator: async () => operator.apiKey,
    none: async () => undefined,
  };
  const apiKey = await keys[pairing.source]();
  if (info.requires_key && !apiKey) return null;
  return {
    ...e,
    apiKey,
    baseUrl: pairing.baseUrl,
    operatorEndpoint: pairing.operatorEndpoint,
    isByok: pairing.source === 'request' || doc !== null,
  };
}

export async function resolveChain(ctx: ChainContext): Promise<ResolvedEntry[]> {
  if (ctx.request) {
    const r = ctx.request;
    const apiKey = r.hasKey ? ((await ctx.llm?.openJobKey(ctx.jobId)) ?? undefined) : undefined;
    const entry = await entryFor(
      ctx,
      {
        provider: r.provider,
        model: r.model,
        temperature: r.temperature ?? DEFAULT_TEMPERATURE,
        maxTokens: r.maxTokens ?? DEFAULT_MAX_TOKENS,
        position: 0,
      },
      { apiKey, baseUrl: r.baseUrl },
    );
    if (!entry) {
      throw new CategorizedError(
        'no_models',
        `no usable key for provider "${r.provider}": give llm_config.api_key, or store one with PUT /api/v1/llm/keys`,
      );
    }
    return [entry];
  }
  const tenantChain = ctx.llm ? (await ctx.llm.getChain(ctx.tenantId)).filter((e) => e.is_enabled) : [];
  if (tenantChain.length > 0) {
    const entries = await Promise.all(
      tenantChain.map((e) =>
        entryFor(ctx, {
          provider: e.provider,
          model: e.model,
          temperature: e.temperature,
          maxTokens: e.max_tokens,
          position: e.position,
        }),
      ),
    );
    const usable = entries.filter((e): e is ResolvedEntry => e !== null);
    if (usable.length === 0) {
      throw new CategorizedError(
        'no_models',
        'no entry of your model chain is usable: store a key for its providers (PUT /api/v1/llm/keys) or enable an entry',
      );
    }
    return usable;
  }
  // The service's default chain, each entry on the tenant's own key for its provider when one is stored.
  const defaults = await Promise.all(
    parseChain(ctx.config.DEFAULT_LLM_CHAIN).map((e, position) =>
      entryFor(ctx, { ...e, temperature: DEFAULT_TEMPERATURE, maxTokens: DEFAULT_MAX_TOKENS, position }),
    ),
  );
  const chain = defaults.filter((e): e is ResolvedEntry => e !== null);
  if (chain.length === 0) throw new CategorizedError('no_models', 'no model is configured for this service');
  return chain;
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

/**
 * Whether to try the next entry after this failure. A provider's quota_exceeded falls through; our own
 * budget's refusal (details.budget, activities/extraction/budget-guard.ts) does not: every entry would be
 * refused too.
 */
export const shouldFallBack = (category: ErrorCategory, details?: Record<string, unknown>) =>
  FALL_THROUGH.has(category) && budgetOfDetails(details) === null;
