// An account holder manages their own API keys. A new key is shown once; only its hash is stored.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema } from '../../shared/schemas/common.js';
import {
  ApiKeyListSchema,
  CreateApiKeyRequestSchema,
  CreatedApiKeySchema,
} from '../../shared/schemas/keys.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import { type ApiKeyDoc, keyApiVersion, keyScopes } from '../../shared/store/tenants.js';
import type { ApiDeps } from '../deps.js';
import { notFound } from '../problem.js';

const keyResource = (doc: ApiKeyDoc) => ({
  id: doc.id,
  name: doc.name,
  key_prefix: doc.prefix,
  prefix: doc.prefix,
  scopes: keyScopes(doc),
  api_version: keyApiVersion(doc),
  created_at: doc.created_at,
  last_used_at: doc.last_used_at,
  expires_at: doc.expires_at ?? null,
});

export const keyRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/keys',
      {
        schema: {
          summary: 'Create an API key for your tenant',
          description:
            'The key is in this response only; it is stored as a hash and cannot be shown again. Needs a key ' +
            "with the full scope. refyne version: the product's CreateKeyOutputBody (no api_version, prefix " +
            'or last_used_at).',
          tags: ['keys'],
          body: CreateApiKeyRequestSchema.optional().default({ name: 'api key', scopes: ['full'] }),
          response: { 201: CreatedApiKeySchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const { name, scopes, api_version, expires_at } = request.body;
        const { key, doc } = await deps.tenants.createKey(request.tenant._id, name, {
          scopes,
          api_version: api_version ?? request.apiVersion,
          expires_at: expires_at ? new Date(expires_at).toISOString() : null,
        });
        return reply.code(201).send({ ...keyResource(doc), key });
      },
    );

    app.get(
      '/keys',
      {
        schema: {
          summary: "List your tenant's API keys (never the keys themselves)",
          description:
            "Each key with its scopes and API version. refyne version: the product's ListKeysOutputBody " +
            '(APIKeyResponse items: no api_version or prefix).',
          tags: ['keys'],
          response: { 200: ApiKeyListSchema, ...standardErrors },
        },
      },
      async (request) => ({ keys: (await deps.tenants.listKeys(request.tenant._id)).map(keyResource) }),
    );

    app.delete(
      '/keys/:id',
      {
        schema: {
          summary: 'Delete an API key',
          description:
            'Requests with the deleted key are refused (401): at once by the API process that deleted it, within ' +
            'API_KEY_CACHE_MS (2 s by default) by any other. refyne version: 200 {"success": true}.',
          tags: ['keys'],
          params: IdParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        if (!(await deps.tenants.deleteKey(request.tenant._id, request.params.id)))
          throw notFound(`API key ${request.params.id}`);
        return reply.code(204).send(null);
      },
    );
  };
