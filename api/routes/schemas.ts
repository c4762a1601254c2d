// Stored schemas: the caller's own (read and write) and other tenants' public ones (read and use only).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { validateSchemaYaml } from '../../shared/schema-input.js';
import { IdParamsSchema } from '../../shared/schemas/common.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import {
  StoredSchemaCreateSchema,
  StoredSchemaListSchema,
  StoredSchemaQuerySchema,
  StoredSchemaSchema,
  StoredSchemaUpdateSchema,
} from '../../shared/schemas/stored-schemas.js';
import type { StoredSchemaDoc } from '../../shared/store/schema-library.js';
import type { ApiDeps } from '../deps.js';
import { parseSchemaField } from '../job-requests.js';
import { found, notFound } from '../problem.js';

const schemaResource = ({ _id, tenant_id, ...doc }: StoredSchemaDoc) => ({
  id: _id,
  organization_id: tenant_id,
  ...doc,
});

/** schema_yaml goes through the parser extract uses; a 422 points inside it (body.schema_yaml.<path>). */
const checkYaml = (text: string | undefined) => {
  if (text !== undefined) parseSchemaField(text, 'body.schema_yaml', validateSchemaYaml);
};

export const schemaRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const owned = async (tenantId: string, id: string) =>
      found(await deps.schemaLibrary.owned(tenantId, id), `schema ${id}`);

    app.get(
      '/schemas',
      {
        schema: {
          summary: "List your stored schemas and other tenants' public ones, newest first",
          description:
            'Filters combine: category, tag (exact), visibility (private or public). include_public=false ' +
            'lists only your own schemas. total counts every match; limit and offset page through them.',
          tags: ['schemas'],
          querystring: StoredSchemaQuerySchema,
          response: { 200: StoredSchemaListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const { schemas, total } = await deps.schemaLibrary.list(request.tenant._id, request.query);
        return { schemas: schemas.map(schemaResource), total };
      },
    );

    app.post(
      '/schemas',
      {
        schema: {
          summary: 'Store a schema',
          description:
            'schema_yaml is checked with the parser extract uses (422 naming the place inside it). Use the ' +
            'stored schema with schema_id on extract and crawl, or as a site default_schema_id. 201 with it.',
          tags: ['schemas'],
          body: StoredSchemaCreateSchema,
          response: { 201: StoredSchemaSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        checkYaml(request.body.schema_yaml);
        const doc = await deps.schemaLibrary.create(request.tenant._id, request.apiKeyId, request.body);
        return reply.code(201).send(schemaResource(doc));
      },
    );

    app.get(
      '/schemas/:id',
      {
        schema: {
          summary: 'Get a stored schema: one of yours, or a public one',
          tags: ['schemas'],
          params: IdParamsSchema,
          response: { 200: StoredSchemaSchema, ...standardErrors },
        },
      },
      async (request) => {
        const doc = await deps.schemaLibrary.readable(request.tenant._id, request.params.id);
        if (!doc) throw notFound(`schema ${request.params.id}`);
        return schemaResource(doc);
      },
    );

    app.put(
      '/schemas/:id',
      {
        schema: {
          summary: 'Update one of your stored schemas',
          description:
            "Every field is optional; a missing one keeps its value. Another tenant's schema, even a public " +
            'one, is a 404. Jobs already created keep the schema they started with.',
          tags: ['schemas'],
          params: IdParamsSchema,
          body: StoredSchemaUpdateSchema,
          response: { 200: StoredSchemaSchema, ...standardErrors },
        },
      },
      async (request) => {
        const existing = await owned(request.tenant._id, request.params.id);
        checkYaml(request.body.schema_yaml);
        const updated = await deps.schemaLibrary.update(existing, request.body);
        if (!updated) throw notFound(`schema ${request.params.id}`);
        return schemaResource(updated);
      },
    );

    app.delete(
      '/schemas/:id',
      {
        schema: {
          summary: 'Delete one of your stored schemas',
          description:
            "Jobs already created keep their schema; sites naming it as default_schema_id keep the id. Another tenant's schema is a 404.",
          tags: ['schemas'],
          params: IdParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        const doc = await owned(request.tenant._id, request.params.id);
        if (!(await deps.schemaLibrary.delete(doc))) throw notFound(`schema ${request.params.id}`);
        return reply.code(204).send(null);
      },
    );
  };
