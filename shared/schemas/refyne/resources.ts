// API version `refyne`: the response models of the Refyne product's published SDKs for stored resources,
// settings and the service itself (see ./jobs.ts for why each lists exactly the product's fields).
import { z } from 'zod';
import { RefyneAnalysisSchema } from './jobs.js';

const str = z.string();
const int = z.number().int();
const num = z.number();
const bool = z.boolean();
const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const RefyneSchemaSchema = z.object({
  category: opt(str),
  created_at: str,
  description: opt(str),
  id: str,
  is_platform: bool,
  name: str,
  organization_id: opt(str),
  schema_yaml: str,
  tags: opt(z.array(str)),
  updated_at: str,
  usage_count: int,
  user_id: opt(str),
  visibility: str,
});
export const RefyneSchemaListSchema = z.object({ schemas: z.array(RefyneSchemaSchema) });

export const RefyneSiteSchema = z.object({
  analysis_result: opt(RefyneAnalysisSchema),
  crawl_options: opt(
    z.object({
      follow_pattern: opt(str),
      follow_selector: opt(str),
      max_depth: opt(int),
      max_pages: opt(int),
    }),
  ),
  created_at: str,
  default_schema_id: opt(str),
  domain: str,
  fetch_mode: str,
  id: str,
  name: opt(str),
  organization_id: opt(str),
  updated_at: str,
  url: str,
  user_id: str,
});
export const RefyneSiteListSchema = z.object({ sites: z.array(RefyneSiteSchema) });

const keyFields = {
  created_at: str,
  expires_at: opt(str),
  id: str,
  key_prefix: str,
  name: str,
  scopes: z.array(str),
};
export const RefyneApiKeySchema = z.object({ ...keyFields, last_used_at: opt(str) });
export const RefyneApiKeyListSchema = z.object({ keys: z.array(RefyneApiKeySchema) });
export const RefyneCreatedApiKeySchema = z.object({ ...keyFields, key: str });

export const RefyneProviderListSchema = z.object({
  providers: z.array(
    z.object({
      allow_base_url_override: bool,
      base_url_hint: opt(str),
      decommission_note: opt(str),
      description: str,
      display_name: str,
      docs_url: opt(str),
      key_placeholder: opt(str),
      name: str,
      required_features: opt(z.array(str)),
      requires_key: bool,
      status: str,
      successor_provider: opt(str),
    }),
  ),
});

export const RefyneLlmKeySchema = z.object({
  base_url: opt(str),
  created_at: str,
  has_key: bool,
  id: str,
  is_enabled: bool,
  provider: str,
  updated_at: str,
});
export const RefyneLlmKeyListSchema = z.object({ keys: z.array(RefyneLlmKeySchema) });

export const RefyneChainSchema = z.object({
  chain: z.array(
    z.object({
      created_at: str,
      id: str,
      is_enabled: bool,
      max_tokens: opt(int),
      model: str,
      position: int,
      provider: str,
      temperature: opt(num),
      updated_at: str,
    }),
  ),
});

export const RefyneModelListSchema = z.object({
  models: z.array(
    z.object({ context_size: opt(int), description: opt(str), id: str, is_free: bool, name: str }),
  ),
});

export const RefyneWebhookSchema = z.object({
  created_at: str,
  events: z.array(str),
  has_secret: bool,
  headers: opt(z.array(z.object({ name: str, value: str }))),
  id: str,
  is_active: bool,
  name: str,
  updated_at: str,
  url: str,
});
export const RefyneWebhookListSchema = z.object({ webhooks: z.array(RefyneWebhookSchema) });

export const RefyneUsageTotalsSchema = z.object({ byok_jobs: int, total_charged_usd: num, total_jobs: int });
export const RefyneHealthSchema = z.object({ status: str, version: str });

export const RefyneTierListSchema = z.object({
  tiers: z.array(
    z.object({
      credit_allocation_usd: num,
      credit_rollover_months: int,
      display_name: str,
      max_concurrent_jobs: int,
      max_pages_per_crawl: int,
      monthly_extractions: int,
      name: str,
      requests_per_minute: int,
    }),
  ),
});

const chainItem = z.object({ name: str });
export const RefyneCleanerListSchema = z.object({
  cleaners: z.array(
    z.object({
      description: str,
      name: str,
      options: opt(z.array(z.object({ default: z.unknown(), description: str, name: str, type: str }))),
    }),
  ),
  default_analysis_chain: z.array(chainItem),
  default_extraction_chain: z.array(chainItem),
});

/** Every delete (DeleteSchemaOutputBody, RevokeKeyOutputBody, …). */
export const RefyneDeletedSchema = z.object({ success: bool });

/** ErrorModel: an RFC 9457 problem without our extensions. */
export const RefyneProblemSchema = z.object({
  detail: opt(str),
  errors: opt(z.array(z.object({ location: opt(str), message: opt(str), value: z.unknown() }))),
  instance: opt(str),
  status: opt(int),
  title: opt(str),
  type: str,
});
