// Stored schemas: named, reusable schema_yaml that extract and crawl requests name by schema_id.
import { z } from 'zod';
import { PaginationQuerySchema, TimestampSchema } from './common.js';

export const SCHEMA_CATEGORIES = [
  'ecommerce',
  'news',
  'jobs',
  'real_estate',
  'events',
  'directory',
  'reviews',
  'social',
  'documentation',
  'other',
] as const;
export type SchemaCategory = (typeof SCHEMA_CATEGORIES)[number];

export const SCHEMA_VISIBILITIES = ['private', 'public'] as const;
export type SchemaVisibility = (typeof SCHEMA_VISIBILITIES)[number];

export const SchemaCategorySchema = z.enum(SCHEMA_CATEGORIES).meta({
  id: 'SchemaCategory',
  description:
    'What kind of pages the schema is for. ecommerce: products and prices; news: articles; jobs: job ' +
    'postings; real_estate: property listings; events: dated events; directory: businesses, people or ' +
    'organisations; reviews: ratings and reviews; social: posts and profiles; documentation: reference ' +
    'pages; other: anything else (the default).',
});

export const SchemaVisibilitySchema = z.enum(SCHEMA_VISIBILITIES).meta({
  id: 'SchemaVisibility',
  description:
    'private (default): only your tenant sees and uses it. public: every tenant can read, list and use it ' +
    '(schema_id, default_schema_id); only your tenant can change or delete it.',
});

const TagsSchema = z
  .array(z.string().trim().min(1).max(50))
  .max(20)
  .nullable()
  .meta({ description: 'Free labels (at most 20, 1..50 characters each; duplicates removed), or null.' });

const SchemaYamlSchema = z
  .string()
  .min(1)
  .meta({
    description:
      'The schema as YAML (or JSON) text: a structured schema (name + fields) or a {field: type} map, with the ' +
      'rules of SchemaInput. It is parsed on save with the same parser extract uses; an unusable schema is a ' +
      '422 whose errors[0].location points inside it (body.schema_yaml.fields.0.type). A prompt is not a ' +
      'stored schema.',
  });

const fields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).meta({ description: 'Free text, at most 2000 characters.' }),
  category: SchemaCategorySchema,
  schema_yaml: SchemaYamlSchema,
  tags: TagsSchema,
  visibility: SchemaVisibilitySchema,
};

export const StoredSchemaCreateSchema = z
  .object({
    ...fields,
    description: fields.description.default(''),
    category: fields.category.default('other'),
    tags: fields.tags.default(null),
    visibility: fields.visibility.default('private'),
  })
  .strict()
  .meta({ id: 'StoredSchemaCreateRequest' });
export type StoredSchemaCreate = z.infer<typeof StoredSchemaCreateSchema>;

export const StoredSchemaUpdateSchema = z.object(fields).partial().strict().meta({
  id: 'StoredSchemaUpdateRequest',
  description: 'Every field is optional; a missing field keeps its value, tags: null clears the tags.',
});
export type StoredSchemaUpdate = z.infer<typeof StoredSchemaUpdateSchema>;

export const StoredSchemaSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: SchemaCategorySchema,
    schema_yaml: z.string(),
    organization_id: z.string().meta({ description: 'The tenant that owns the schema.' }),
    user_id: z.string().meta({ description: 'The id of the API key that created the schema.' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
    tags: z.array(z.string()).nullable(),
    visibility: SchemaVisibilitySchema,
    is_platform: z.boolean().meta({
      description:
        'true for schemas the service itself provides to every tenant (none ship yet); schemas stored ' +
        'through this API are always false.',
    }),
    usage_count: z.number().int().meta({
      description:
        'Jobs created with this schema (schema_id); an idempotent replay of a request does not count.',
    }),
  })
  .meta({ id: 'StoredSchema' });
export type StoredSchema = z.infer<typeof StoredSchemaSchema>;

export const StoredSchemaListSchema = z
  .object({ schemas: z.array(StoredSchemaSchema), total: z.number().int() })
  .meta({ id: 'StoredSchemaList' });

export const StoredSchemaQuerySchema = PaginationQuerySchema.extend({
  category: SchemaCategorySchema.optional().meta({ description: 'Only schemas of this category.' }),
  tag: z.string().min(1).max(50).optional().meta({ description: 'Only schemas carrying this tag (exact).' }),
  visibility: SchemaVisibilitySchema.optional().meta({ description: 'Only private or only public schemas.' }),
  include_public: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .meta({
      description: "true (default): your schemas plus other tenants' public ones; false: only your own.",
    }),
});
export type StoredSchemaQuery = z.infer<typeof StoredSchemaQuerySchema>;
