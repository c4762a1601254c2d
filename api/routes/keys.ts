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
import type { ApiKeyDoc } from '../../shared/store/tenants.js';
import type { ApiDeps } from '../deps.js';
import { notFound } from '../problem.js';

const keyResource = (doc: ApiKeyDoc) => ({
  id: doc.id,
  name: doc.name,
  prefix: doc.prefix,
  created_at: doc.created_at,
});

export const keyRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/keys',
      {
        schema: {
          summary: 'Create an API key for your tenant',
          description: 'The key is in this response only; it is stored as a hash and cannot be shown again.',
          tags: ['keys'],
          body: CreateApiKeyRequestSchema.optional().default({ name: 'api key' }),
          response: { 201: CreatedApiKeySchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const { key, doc } = await deps.tenants.createKey(request.tenant._id, request.body.name);
        return reply.code(201).send({ ...keyResource(doc), key });
      },
    );

    app.get(
      '/keys',
      {
        schema: {
          summary: "List your tenant's API keys (never the keys themselves)",
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
          description: 'Requests with the deleted key are refused from now on (401).',
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
