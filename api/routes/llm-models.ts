// GET /llm/models/{provider}: the models of a provider the caller's jobs can run, with context size and the
// list prices cost is computed with.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { parseChain } from '../../shared/config.js';
import { PROVIDER_NAMES, providerInfo } from '../../shared/llm/catalog.js';
import { operatorCredentials } from '../../shared/llm/key-pairing.js';
import { listModels, type ModelListing } from '../../shared/llm/models.js';
import { ModelListSchema, ModelsQuerySchema, ProviderParamsSchema } from '../../shared/schemas/llm.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
import { notFound } from '../problem.js';

const DESCRIPTION = `The models of a provider (a name from GET /llm/providers), from the price catalogue the service
computes cost with (genai-prices): id, name, description, context_size (tokens) and the list prices in USD per million
input and output tokens (null when the catalogue's price depends on conditions such as prompt length, and such a model
is then charged at the catalogue's price for each call). Deprecated models only with include_deprecated=true.
Providers without list prices (ollama, openai_compatible: their endpoint decides which models exist) list the models
your chain and the service's default chain name for them. runnable says whether a job of yours can call the provider
now: a key of yours is stored for it, the service has one, or it needs none. An unknown provider is a 404. refyne
version: the product's UserListModelsOutputBody ({models: [{id, name, description, context_size, is_free}]}).`;

/** Models a provider without list prices is known to run: those the tenant's and the service's chains name. */
async function chainModels(deps: ApiDeps, tenantId: string, provider: string): Promise<ModelListing[]> {
  const named = [...(await deps.llm.getChain(tenantId)), ...parseChain(deps.config.DEFAULT_LLM_CHAIN)]
    .filter((entry) => entry.provider === provider)
    .map((entry) => entry.model);
  return [...new Set(named)].map((id) => ({
    id,
    name: id,
    description: 'Named in a model chain; the endpoint decides what it is.',
    context_size: null,
    input_price_per_mtok: null,
    output_price_per_mtok: null,
    is_free: false,
    deprecated: false,
  }));
}

export const llmModelRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/llm/models/:provider',
      {
        schema: {
          summary: 'The models of a provider, with context size and list prices',
          description: DESCRIPTION,
          tags: ['llm'],
          params: ProviderParamsSchema,
          querystring: ModelsQuerySchema,
          response: { 200: ModelListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const { provider } = request.params;
        const info = providerInfo(provider);
        if (!info || !PROVIDER_NAMES.includes(provider)) throw notFound(`provider ${provider}`);
        const catalogue = listModels(provider).filter(
          (m) => request.query.include_deprecated || !m.deprecated,
        );
        const models =
          catalogue.length > 0 ? catalogue : await chainModels(deps, request.tenant._id, provider);
        const stored = await deps.llm.getKey(request.tenant._id, provider);
        const runnable =
          !info.requires_key ||
          Boolean(stored?.sealed_key && stored.is_enabled) ||
          Boolean(operatorCredentials(deps.config, provider).apiKey);
        return { provider, runnable, models };
      },
    );
  };
