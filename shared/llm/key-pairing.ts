// Which key a model call may carry, and to which endpoint. A key goes only to the endpoint it was
// given for: a key in the request to the request's base_url; a tenant's stored key to the base_url it was
// stored with (else the provider's endpoint: the operator's configured one, or the official one); the operator's key to the operator's configured
// endpoint (else the official one). A base_url the caller names that no such key was given for is refused,
// so neither the operator's key nor a stored key can be sent to an address a caller picked. The API checks
// this when a job is requested and the worker again before every call (jobs recorded earlier, retries).
import type { Config } from '../config.js';
import { providerInfo } from './catalog.js';

/** Where a call's key comes from: the request, the tenant's stored key, the operator's key, or none. */
export type KeySource = 'request' | 'tenant' | 'operator' | 'none';

/** The tenant's settings for a provider that take effect: enabled, with a key or a base_url. */
export interface TenantProviderSettings {
  hasKey: boolean;
  baseUrl?: string;
}

export interface KeyPairingInput {
  provider: string;
  /** llm_config.base_url: an endpoint the caller chose for one job. */
  requestBaseUrl?: string;
  /** llm_config.api_key was given (and is still at hand, for the worker). */
  hasRequestKey: boolean;
  tenant: TenantProviderSettings | null;
  operator: { hasKey: boolean; baseUrl?: string };
}

export type KeyPairing =
  | {
      source: KeySource;
      baseUrl: string;
      /** The endpoint is the operator's own configuration, which may be a private address. */
      operatorEndpoint: boolean;
    }
  | { refused: string };

/** The operator's key and endpoint for a provider, from the environment. */
export function operatorCredentials(config: Config, provider: string): { apiKey?: string; baseUrl?: string } {
  if (provider === 'openai') return { apiKey: config.OPENAI_API_KEY, baseUrl: config.OPENAI_BASE_URL };
  if (provider === 'anthropic')
    return { apiKey: config.ANTHROPIC_API_KEY, baseUrl: config.ANTHROPIC_BASE_URL };
  if (provider === 'ollama') return { baseUrl: config.OLLAMA_BASE_URL };
  return {};
}

/** A stored key document's effect: none when disabled or empty (the operator's settings apply then). */
export function tenantSettings(
  doc: { is_enabled: boolean; sealed_key: string | null; base_url: string | null } | null,
): TenantProviderSettings | null {
  if (!doc?.is_enabled || (doc.sealed_key === null && !doc.base_url)) return null;
  return { hasKey: doc.sealed_key !== null, baseUrl: doc.base_url ?? undefined };
}

/** Two spellings of one endpoint: scheme, host and port, path without trailing slashes, query. */
export function sameEndpoint(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const key = (raw: string) => {
    try {
      const u = new URL(raw);
      return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
    } catch {
      return null;
    }
  };
  const ka = key(a);
  return ka !== null && ka === key(b);
}

export function pairKey(p: KeyPairingInput): KeyPairing {
  const info = providerInfo(p.provider);
  // The provider's endpoint for this deployment: the operator's configured one (a gateway, a local runtime,
  // the tests' fake) when set, else the official one. Keys stored or sent without a base_url go there: the
  // operator already holds every tenant's sealed key, and no test or deployment then reaches an endpoint
  // the operator did not choose.
  const official = p.operator.baseUrl ?? info?.default_base_url;
  if (p.requestBaseUrl && info?.allow_base_url_override === false) {
    return { refused: `provider "${p.provider}" does not take a base_url` };
  }
  const done = (source: KeySource, baseUrl: string | undefined): KeyPairing => {
    if (baseUrl === undefined) return { refused: `provider "${p.provider}" needs a base_url` };
    return { source, baseUrl, operatorEndpoint: sameEndpoint(baseUrl, p.operator.baseUrl) };
  };
  if (p.hasRequestKey) return done('request', p.requestBaseUrl ?? official);
  // The key the provider uses without a request key, and the one endpoint that key may reach. A tenant
  // that configured the provider never falls back to the operator's key.
  const held = p.tenant
    ? p.tenant.hasKey
      ? { source: 'tenant' as const, endpoint: p.tenant.baseUrl ?? official }
      : null
    : p.operator.hasKey
      ? { source: 'operator' as const, endpoint: p.operator.baseUrl ?? official }
      : null;
  const keyless = p.tenant ? (p.tenant.baseUrl ?? official) : (p.operator.baseUrl ?? official);
  if (!p.requestBaseUrl) return held ? done(held.source, held.endpoint) : done('none', keyless);
  if (!held) return done('none', p.requestBaseUrl);
  if (sameEndpoint(held.endpoint, p.requestBaseUrl)) return done(held.source, p.requestBaseUrl);
  return {
    refused:
      held.source === 'tenant'
        ? `your stored ${p.provider} key is only sent to ${held.endpoint ?? 'the endpoint it was stored for'}: ` +
          'give llm_config.api_key for this base_url, or store a key for it (PUT /api/v1/llm/keys)'
        : `the service's ${p.provider} key is never sent to a base_url a caller chooses: give llm_config.api_key ` +
          'for this base_url, or store a key for it (PUT /api/v1/llm/keys)',
  };
}
