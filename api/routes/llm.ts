// Model configuration of the caller's tenant: provider keys (BYOK), the fallback chain, the providers.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { JobLlmConfig } from '../../activities/llm/chain.js';
import { PROVIDERS, providerInfo } from '../../shared/llm/catalog.js';
import { operatorCredentials, pairKey, sameEndpoint, tenantSettings } from '../../shared/llm/key-pairing.js';
import { checkCallerHost } from '../../shared/net/address-policy.js';
import {
  ChainRequestSchema,
  ChainSchema,
  type LlmConfig,
  LlmKeyListSchema,
  type LlmKeyRequest,
  LlmKeyRequestSchema,
  LlmKeySchema,
  ProviderListSchema,
  ProviderParamsSchema,
  ProvidersQuerySchema,
} from '../../shared/schemas/llm.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import type { ChainEntryDoc, LlmKeyDoc } from '../../shared/store/llm-settings.js';
import type { ApiDeps } from '../deps.js';
import { notFound, ProblemError } from '../problem.js';

const keyResource = (doc: LlmKeyDoc) => ({
  id: doc.id,
  provider: doc.provider,
  base_url: doc.base_url,
  created_at: doc.created_at,
  updated_at: doc.updated_at,
  has_key: doc.sealed_key !== null,
  is_enabled: doc.is_enabled,
});

/** A request's llm_config as the job carries it: everything but the key, which is stored with the job. */
export function jobLlmConfig(llm: LlmConfig | undefined): JobLlmConfig | undefined {
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

const chainResource = (entries: ChainEntryDoc[]) => ({ chain: entries });

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

const invalidBaseUrl = (location: string, message: string, value: string | undefined) =>
  new ProblemError({ slug: 'validation-error', detail: message, errors: [{ location, message, value }] });

/**
 * A job's llm_config, before the job starts: its base_url passes checkBaseUrl, and no key but one given for
 * that endpoint would go there (pairKey) — the operator's and the tenant's stored keys stay with their own.
 * The worker checks the pairing again before every call.
 */
export async function checkLlmConfig(deps: ApiDeps, tenantId: string, llm: LlmConfig) {
  const location = 'body.llm_config.base_url';
  const baseUrl = llm.base_url || undefined;
  await checkBaseUrl(deps, llm.provider, baseUrl, location);
  const operator = operatorCredentials(deps.config, llm.provider);
  const pairing = pairKey({
    provider: llm.provider,
    requestBaseUrl: baseUrl,
    hasRequestKey: Boolean(llm.api_key),
    tenant: tenantSettings(await deps.llm.getKey(tenantId, llm.provider)),
    operator: { hasKey: Boolean(operator.apiKey), baseUrl: operator.baseUrl },
  });
  if ('refused' in pairing) throw invalidBaseUrl(location, pairing.refused, llm.base_url);
}

/**
 * A stored key stays with the endpoint it was stored for: moving it to another base_url (or back to the
 * provider's own) needs the key again, so nobody holding an API key of the tenant can redirect it unseen.
 */
async function checkKeyMove(deps: ApiDeps, tenantId: string, body: LlmKeyRequest) {
  if (body.api_key || body.base_url === undefined) return;
  const stored = await deps.llm.getKey(tenantId, body.provider);
  if (!stored?.sealed_key) return;
  const official = providerInfo(body.provider)?.default_base_url;
  const from = stored.base_url ?? official;
  const to = body.base_url || official;
  if (from === to || sameEndpoint(from, to)) return;
  throw invalidBaseUrl(
    'body.base_url',
    'the stored key is only sent to the base_url it was stored with: give api_key again to use another one',
    body.base_url,
  );
}

export const llmRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/llm/keys',
      {
        schema: {
          summary: "List your tenant's provider keys (has_key only, never the key)",
          tags: ['llm'],
          response: { 200: LlmKeyListSchema, ...standardErrors },
        },
      },
      async (request) => ({ keys: (await deps.llm.listKeys(request.tenant._id)).map(keyResource) }),
    );

    app.put(
      '/llm/keys',
      {
        schema: {
          summary: 'Create or update your key for a provider (bring your own key)',
          description:
            'The key is stored sealed (AES-256-GCM with the operator key) and only reported as has_key. An empty ' +
            'or missing api_key keeps the stored key, so is_enabled (or the base_url of a provider without a ' +
            'stored key) can change alone. Jobs whose chain uses this provider then run on your key (is_byok=true, ' +
            "cost_usd 0). The key is only ever sent to the base_url stored with it, or to the provider's official " +
            'endpoint when stored without one: a job naming another llm_config.base_url is refused (422), and ' +
            'moving a stored key to another base_url needs api_key again (422 at body.base_url otherwise).',
          tags: ['llm'],
          body: LlmKeyRequestSchema,
          response: { 200: LlmKeySchema, ...standardErrors },
        },
      },
      async (request) => {
        const body = request.body;
        await checkBaseUrl(deps, body.provider, body.base_url, 'body.base_url');
        await checkKeyMove(deps, request.tenant._id, body);
        return keyResource(await deps.llm.putKey(request.tenant._id, body));
      },
    );

    app.delete(
      '/llm/keys/:provider',
      {
        schema: {
          summary: 'Delete your key for a provider',
          tags: ['llm'],
          params: ProviderParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        if (!(await deps.llm.deleteKey(request.tenant._id, request.params.provider))) {
          throw notFound(`key for provider ${request.params.provider}`);
        }
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/llm/chain',
      {
        schema: {
          summary: "Your tenant's model fallback chain",
          description: 'Empty means the service default chain is used.',
          tags: ['llm'],
          response: { 200: ChainSchema, ...standardErrors },
        },
      },
      async (request) => chainResource(await deps.llm.getChain(request.tenant._id)),
    );

    app.put(
      '/llm/chain',
      {
        schema: {
          summary: 'Replace your model fallback chain',
          description:
            'Entries are tried in order (position 0 first). The next entry is tried after rate limits, provider ' +
            'errors, timeouts, unsupported models, truncation and unparseable or non-matching output; an invalid ' +
            'key stops the chain. Each entry uses your key for its provider when stored (sent only to the base_url ' +
            "stored with it), else the service key (sent only to the service's own endpoint). Entries carry no " +
            'base_url: an endpoint is chosen only together with its key, with PUT /llm/keys.',
          tags: ['llm'],
          body: ChainRequestSchema,
          response: { 200: ChainSchema, ...standardErrors },
        },
      },
      async (request) => chainResource(await deps.llm.putChain(request.tenant._id, request.body.chain)),
    );

    app.get(
      '/llm/providers',
      {
        schema: {
          summary: 'The model providers the service can call',
          tags: ['llm'],
          querystring: ProvidersQuerySchema,
          response: { 200: ProviderListSchema, ...standardErrors },
        },
      },
      async (request) => ({
        providers: PROVIDERS.filter(
          (p) => request.query.include_decommissioned || p.status !== 'decommissioned',
        ).map(({ api, default_base_url, ...p }) => p),
      }),
    );
  };
