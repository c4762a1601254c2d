import { z } from 'zod';
import { API_KEY_SCOPES, API_VERSIONS } from '../api-keys.js';
import { TimestampSchema } from './common.js';

export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES).meta({
  id: 'ApiKeyScope',
  description:
    'full: everything. read: every read (GET), nothing that starts a job or changes a setting. extract: ' +
    'one-page jobs (POST /extract, /analyze, /map), cancelling, retrying and re-extracting them, and reading ' +
    'jobs. crawl: crawls (POST /crawl, /sites/{id}/crawl), cancelling, retrying and re-extracting them, and ' +
    'reading jobs. jobs: reading jobs (GET /jobs…) only. Creating, listing and deleting keys, and every other ' +
    "change (sites, schemas, webhooks, model settings, monitors), needs full. A request outside the key's " +
    'scopes is a 403 problem naming the scopes that would allow it. GET /health takes any key.',
});

export const ApiVersionSchema = z.enum(API_VERSIONS).meta({
  id: 'ApiVersion',
  description:
    "The shape of the key's answers. v1 (default): this document. refyne: every answer shaped exactly as the " +
    "models of the Refyne product's published SDKs declare it (no field of ours beyond them; results as " +
    '{job_id, status, page_count, results, merged}; deletes answer 200 {"success": true}; validation errors ' +
    'are 400), so those SDKs work unchanged; see each route. A request may name a version in its ' +
    'X-API-Version header instead; every answer names the version it is in, in X-API-Version.',
});

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    key_prefix: z.string().meta({ description: 'First characters of the key, to recognise it' }),
    prefix: z.string().meta({ description: 'The same as key_prefix (the name earlier versions used)' }),
    scopes: z.array(ApiKeyScopeSchema),
    api_version: ApiVersionSchema,
    created_at: TimestampSchema,
    last_used_at: TimestampSchema.nullable().meta({ description: 'Not recorded yet: always null' }),
    expires_at: TimestampSchema.nullable().meta({ description: 'When the key stops working; null: never' }),
  })
  .meta({
    id: 'ApiKey',
    description:
      "An API key of the tenant (the Refyne product's APIKeyResponse, plus api_version and prefix).",
  });

export const CreateApiKeyRequestSchema = z
  .object({
    name: z.string().min(1).max(64).default('api key'),
    scopes: z
      .array(ApiKeyScopeSchema)
      .min(1)
      .max(API_KEY_SCOPES.length)
      .refine((scopes) => new Set(scopes).size === scopes.length, { message: 'a scope is named twice' })
      .default(['full'])
      .meta({ description: 'What the key may do (see ApiKeyScope). Default: ["full"].', uniqueItems: true }),
    api_version: ApiVersionSchema.optional().meta({
      description:
        'The API version the key gets (see ApiVersion). Default: the version of the request creating it, ' +
        'so a key made through a Refyne SDK is a refyne key.',
    }),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({
        description:
          'RFC 3339 time after which the key is refused (401; a time already past makes a key that never ' +
          'works). Default: never.',
      }),
  })
  .strict()
  .meta({ id: 'CreateApiKeyRequest' });

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().meta({ description: 'The key itself. Shown only in this response; store it now.' }),
}).meta({ id: 'CreatedApiKey' });

export const ApiKeyListSchema = z.object({ keys: z.array(ApiKeySchema) });
