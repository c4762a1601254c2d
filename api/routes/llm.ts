// Model configuration of the caller's tenant: provider keys (BYOK), the fallback chain, the providers.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PROVIDERS, providerInfo } from '../../shared/llm/catalog.js';
import { sameEndpoint } from '../../shared/llm/key-pairing.js';
import {
  ChainRequestSchema,
  ChainSchema,
  LlmKeyListSchema,
  LlmKeyParamsSchema,
  type LlmKeyRequest,
  LlmKeyRequestSchema,
  LlmKeySchema,
  ProviderListSchema,
  ProvidersQuerySchema,
} from '../../shared/schemas/llm.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import type { ChainEntryDoc, LlmKeyDoc } from '../../shared/store/llm-settings.js';
import type { ApiDeps } from '../deps.js';
import { checkBaseUrl, invalidBaseUrl } from '../llm-config.js';
import { notFound } from '../problem.js';

const keyResource = (doc: LlmKeyDoc) => ({
  id: doc.id,
  provider: doc.provider,
  base_url: doc.base_url,
  created_at: doc.created_at,
  updated_at: doc.updated_at,
  has_key: doc.sealed_key !== null,
  is_enabled: doc.is_enabled,
  default_model: doc.default_model ?? null,
});

const chainResource = (entries: ChainEntryDoc[]) => ({ chain: entries });

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
          summary: 'Delete one of your provider keys, by its id or its provider',
          description:
            'The path names the key by its id (as the Refyne product deletes keys) or by its provider. refyne ' +
            'version: 200 {"success": true}.',
          tags: ['llm'],
          params: LlmKeyParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        if (!(await deps.llm.deleteKeyByIdOrProvider(request.tenant._id, request.params.provider))) {
          throw notFound(`key ${request.params.provider}`);
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
