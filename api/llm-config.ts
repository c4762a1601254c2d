// A job's model settings (llm_config) in the API: what the job carries (never the key) and the checks made
// before it starts — a caller's base_url must be a public address the provider allows, and no stored or
// operator key is paired with an endpoint it was not given for.

import { providerInfo } from '../shared/llm/catalog.js';
import { operatorCredentials, pairKey, tenantSettings } from '../shared/llm/key-pairing.js';
import { checkCallerHost } from '../shared/net/address-policy.js';
import type { JobLlmConfig } from '../shared/schemas/job-spec.js';
import type { LlmConfig, ResolvedLlmConfig } from '../shared/schemas/llm.js';
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';

/** A request's llm_config as the job carries it: everything but the key, which is stored with the job. */
export function jobLlmConfig(llm: ResolvedLlmConfig | undefined): JobLlmConfig | undefined {
  return (
    llm && {
      provider: llm.provider,
      model: llm.model,
      baseUrl: llm.base_url || undefined,
      temperature: llm.temperature,
      maxTokens: llm.max_tokens,
      hasKey: Boolean(llm.api_key),
    }
  );
}

/**
 * A caller-chosen endpoint must be a public address (unless the operator allows private ones) and the
 * provider must allow overriding its endpoint. Checked when saved; connections are checked again.
 */
export async function checkBaseUrl(
  deps: ApiDeps,
  provider: string,
  baseUrl: string | undefined,
  location: string,
) {
  if (!baseUrl) return;
  const fail = (message: string) => invalidBaseUrl(location, message, baseUrl);
  if (providerInfo(provider)?.allow_base_url_override === false) {
    throw fail(`provider "${provider}" does not take a base_url`);
  }
  try {
    await checkCallerHost(new URL(baseUrl).hostname, { allowPrivate: deps.config.ALLOW_PRIVATE_ADDRESSES });
  } catch (err) {
    throw fail(`base_url is not allowed: ${(err as Error).message}`);
  }
}

export const invalidBaseUrl = (location: string, message: string, value: string | undefined) =>
  new ProblemError({ slug: 'validation-error', detail: message, errors: [{ location, message, value }] });

/**
 * A job's llm_config, before the job starts: its base_url passes checkBaseUrl, and no key but one given for
 * that endpoint would go there (pairKey) — the operator's and the tenant's stored keys stay with their own.
 * The worker checks the pairing again before every call.
 */
export async function checkLlmConfig(
  deps: ApiDeps,
  tenantId: string,
  llm: LlmConfig,
): Promise<ResolvedLlmConfig> {
  const stored = await deps.llm.getKey(tenantId, llm.provider);
  const model = llm.model ?? stored?.default_model;
  if (!model) {
    const message = `give a model, or store a default_model with your ${llm.provider} key (PUT /llm/keys)`;
    throw new ProblemError({
      slug: 'validation-error',
      detail: `The request has invalid fields: body.llm_config.model`,
      errors: [{ location: 'body.llm_config.model', message }],
    });
  }
  const location = 'body.llm_config.base_url';
  const baseUrl = llm.base_url || undefined;
  await checkBaseUrl(deps, llm.provider, baseUrl, location);
  const operator = operatorCredentials(deps.config, llm.provider);
  const pairing = pairKey({
    provider: llm.provider,
    requestBaseUrl: baseUrl,
    hasRequestKey: Boolean(llm.api_key),
    tenant: tenantSettings(stored),
    operator: { hasKey: Boolean(operator.apiKey), baseUrl: operator.baseUrl },
  });
  if ('refused' in pairing) throw invalidBaseUrl(location, pairing.refused, llm.base_url);
  return { ...llm, model };
}
