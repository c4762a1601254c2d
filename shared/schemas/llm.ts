import { z } from 'zod';
import { PROVIDER_NAMES, PROVIDER_STATUSES, providerInfo } from '../llm/catalog.js';
import { TimestampSchema } from './common.js';

const ProviderNameSchema = z
  .string()
  .refine((name) => PROVIDER_NAMES.includes(name), {
    message: `unknown provider; one of ${PROVIDER_NAMES.join(', ')} (see GET /api/v1/llm/providers)`,
  })
  .refine((name) => providerInfo(name)?.status !== 'decommissioned', {
    message: 'this provider is decommissioned; see successor_provider in GET /api/v1/llm/providers',
  })
  // The enum is for the document (a refine has none); the refines give the clearer message.
  .meta({
    description: 'A provider name from GET /api/v1/llm/providers (not decommissioned).',
    enum: PROVIDER_NAMES.filter((name) => providerInfo(name)?.status !== 'decommissioned'),
  });

const BaseUrlSchema = z
  .string()
  .max(2048)
  .regex(/^(?:[hH][tT][tT][pP][sS]?:\/\/\S+)?$/, { message: 'must be an http(s) URL' })
  .meta({
    description:
      'Endpoint for a local runtime or a custom OpenAI-compatible server. It must not point to a private, ' +
      'loopback or metadata address (checked when saved and on every connection). Empty clears it.',
  });

const TemperatureSchema = z.number().min(0).max(2);
const MaxTokensSchema = z.number().int().min(1).max(200_000);

export const LlmConfigSchema = z
  .object({
    provider: ProviderNameSchema,
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({
        description:
          'Default: the default_model stored with your key for this provider (PUT /llm/keys); without one the ' +
          'request is a 422 at body.llm_config.model.',
      }),
    api_key: z.string().min(1).max(1000).optional().meta({
      description: 'Used for this job only; stored sealed with the job, never returned, logged or captured.',
    }),
    base_url: BaseUrlSchema.optional().meta({
      description:
        'Endpoint for this job: a local runtime or a custom OpenAI-compatible server. It must not point to a ' +
        'private, loopback or metadata address (checked now and on every connection). A key is only ever sent ' +
        'to the endpoint it was given for: a base_url works with api_key in this same llm_config, or with your ' +
        'key stored for exactly this base_url (PUT /llm/keys), or, for a keyless provider, with no key at all. ' +
        "The service's key, or your key stored without this base_url, is never sent to it: such a request is " +
        '422 at body.llm_config.base_url. Not accepted by providers with allow_base_url_override false.',
    }),
    temperature: TemperatureSchema.optional(),
    max_tokens: MaxTokensSchema.optional(),
  })
  .strict()
  .meta({
    id: 'LlmConfig',
    description:
      'A one-job model chain of one entry, overriding the tenant chain. Without api_key, the key stored for the ' +
      'provider (PUT /llm/keys) is used, else the service key for that provider; each goes only to its own ' +
      'endpoint (see base_url).',
  });
export type LlmConfig = z.infer<typeof LlmConfigSchema>;
/** An llm_config whose model is known (given, or the stored key's default_model). */
export type ResolvedLlmConfig = LlmConfig & { model: string };

export const LlmKeyRequestSchema = z
  .object({
    provider: ProviderNameSchema,
    api_key: z.string().max(1000).optional().meta({ description: 'Empty or missing keeps the stored key.' }),
    base_url: BaseUrlSchema.optional().meta({
      description:
        "The endpoint this key is for: the key is sent only there (missing or empty: the provider's official " +
        'endpoint), and jobs may name it as llm_config.base_url without giving a key. It must not point to a ' +
        'private, loopback or metadata address (checked when saved and on every connection). Changing the ' +
        'base_url of a stored key needs api_key again. Missing keeps the stored base_url; empty clears it.',
    }),
    is_enabled: z.boolean(),
    default_model: z
      .string()
      .max(200)
      .optional()
      .meta({
        description:
          "The model a job's llm_config naming this provider without a model runs (the Refyne product's field). " +
          'Missing keeps the stored one; empty clears it.',
      }),
  })
  .strict()
  .meta({ id: 'LlmKeyRequest' });

export type LlmKeyRequest = z.infer<typeof LlmKeyRequestSchema>;

export const LlmKeySchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    base_url: z
      .string()
      .nullable()
      .meta({ description: "The only endpoint the key is sent to; null: the provider's official endpoint." }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
    has_key: z.boolean(),
    is_enabled: z.boolean(),
    default_model: z
      .string()
      .nullable()
      .meta({ description: 'The model an llm_config naming the provider without a model runs; null: none.' }),
  })
  .meta({ id: 'LlmKey', description: 'A provider key of the tenant. The key itself is never returned.' });

export const LlmKeyListSchema = z.object({ keys: z.array(LlmKeySchema) }).meta({ id: 'LlmKeyList' });

export const ChainEntryRequestSchema = z
  .object({
    provider: ProviderNameSchema,
    model: z.string().min(1).max(200),
    is_enabled: z.boolean().default(true),
    temperature: TemperatureSchema.default(0),
    max_tokens: MaxTokensSchema.default(4096),
  })
  .strict()
  .meta({
    description:
      'No base_url: an entry uses the endpoint stored with your key for its provider (PUT /llm/keys), else ' +
      "the service's.",
  });

export const ChainRequestSchema = z
  .object({ chain: z.array(ChainEntryRequestSchema).max(10) })
  .strict()
  .meta({
    id: 'LlmChainRequest',
    description: 'The ordered fallback chain; an empty chain means the service default chain.',
  });

export const ChainEntrySchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    model: z.string(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
    is_enabled: z.boolean(),
    max_tokens: z.number().int(),
    position: z.number().int().meta({ description: '0-based order in which entries are tried' }),
    temperature: z.number(),
  })
  .meta({ id: 'LlmChainEntry' });

export const ChainSchema = z.object({ chain: z.array(ChainEntrySchema) }).meta({ id: 'LlmChain' });

export const ProviderSchema = z
  .object({
    name: z.string(),
    display_name: z.string(),
    description: z.string(),
    docs_url: z.string(),
    key_placeholder: z.string(),
    base_url_hint: z.string(),
    decommission_note: z.string(),
    successor_provider: z.string(),
    status: z.enum(PROVIDER_STATUSES),
    allow_base_url_override: z.boolean(),
    requires_key: z.boolean(),
    required_features: z.array(z.string()),
  })
  .meta({ id: 'LlmProvider' });

export const ProviderListSchema = z
  .object({ providers: z.array(ProviderSchema) })
  .meta({ id: 'LlmProviderList' });

export const ProvidersQuerySchema = z.object({
  include_decommissioned: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .meta({ description: 'Also list decommissioned providers' }),
});

export const ProviderParamsSchema = z.object({ provider: z.string().min(1).max(100) });

export const LlmKeyParamsSchema = z.object({
  provider: z
    .string()
    .min(1)
    .max(100)
    .meta({ description: "The key's id (as the Refyne product deletes keys) or its provider's name" }),
});

export const ModelsQuerySchema = z.object({
  include_deprecated: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .meta({ description: 'Also list models the catalogue marks deprecated' }),
});

export const ModelSchema = z
  .object({
    id: z.string().meta({ description: 'The model name to give as model in llm_config or a chain entry' }),
    name: z.string(),
    description: z.string().nullable(),
    context_size: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Context window in tokens; null: unknown' }),
    input_price_per_mtok: z.number().nullable().meta({ description: 'USD per million input tokens' }),
    output_price_per_mtok: z.number().nullable().meta({ description: 'USD per million output tokens' }),
    is_free: z.boolean().meta({ description: 'Both list prices are 0' }),
    deprecated: z.boolean(),
  })
  .meta({ id: 'LlmModel' });

export const ModelListSchema = z
  .object({
    provider: z.string(),
    runnable: z.boolean().meta({
      description: 'Whether your jobs can call this provider now (your key, the service key, or none needed)',
    }),
    models: z.array(ModelSchema),
  })
  .meta({ id: 'LlmModelList' });
