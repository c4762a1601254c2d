// API version `refyne`: what each route's v1 answer becomes. The route builds its v1 answer as always; here it
// is reshaped where the product decided another shape, then parsed by the product's model, which keeps exactly
// the product's fields. Routes not listed (ours alone: monitors, map, sessions…) answer as in v1.
import type { z } from 'zod';
import { mergeIntoObject } from '../../shared/merge-results.js';
import {
  RefyneAnalyzeSchema,
  RefyneCrawlJobSchema,
  RefyneDebugCaptureSchema,
  RefyneDownloadSchema,
  RefyneExtractSchema,
  RefyneJobDeliveriesSchema,
  RefyneJobListSchema,
  RefyneJobSchema,
  RefyneWebhookDeliveriesSchema,
} from '../../shared/schemas/refyne/jobs.js';
import {
  RefyneApiKeyListSchema,
  RefyneChainSchema,
  RefyneCleanerListSchema,
  RefyneCreatedApiKeySchema,
  RefyneHealthSchema,
  RefyneLlmKeyListSchema,
  RefyneLlmKeySchema,
  RefyneModelListSchema,
  RefyneProviderListSchema,
  RefyneSchemaListSchema,
  RefyneSchemaSchema,
  RefyneSiteListSchema,
  RefyneSiteSchema,
  RefyneTierListSchema,
  RefyneUsageTotalsSchema,
  RefyneWebhookListSchema,
  RefyneWebhookSchema,
} from '../../shared/schemas/refyne/resources.js';
import { API_PREFIX } from '../auth.js';

type Json = Record<string, unknown>;
export interface RefyneView {
  schema: z.ZodType;
  /** From the v1 answer to what the schema reads (default: as it is). */
  from?: (payload: Json) => unknown;
}

/** A saved webhook with no event filter listens to every event: the product's list is never null. */
const webhook = (hook: Json) => ({ ...hook, events: hook.events ?? ['*'] });

/** A waited crawl's data: the completed pages' data merged into one object (as the results' `merged`). */
function crawlJob(payload: Json): unknown {
  if (!Array.isArray(payload.data)) return payload;
  const pages = payload.data as { status?: string; data?: unknown }[];
  return {
    ...payload,
    data: mergeIntoObject(pages.filter((p) => p.status === 'completed').map((p) => p.data)),
  };
}

/** The product's tier limits say 0 for "no limit"; its credits are our monthly budget. */
const tier = (t: Json) => ({
  name: t.name,
  display_name: t.display_name,
  requests_per_minute: t.rate_limit_per_minute,
  credit_allocation_usd: t.monthly_budget_usd ?? 0,
  credit_rollover_months: 0,
  max_concurrent_jobs: t.max_concurrent_jobs ?? 0,
  max_pages_per_crawl: t.max_pages_per_crawl ?? 0,
  monthly_extractions: 0,
});

const list = (key: string, item: (value: Json) => unknown) => (payload: Json) => ({
  ...payload,
  [key]: (payload[key] as Json[]).map(item),
});

const VIEWS: Record<string, RefyneView> = {
  'POST /extract': { schema: RefyneExtractSchema },
  'POST /crawl': { schema: RefyneCrawlJobSchema, from: crawlJob },
  'POST /analyze': { schema: RefyneAnalyzeSchema },
  'GET /jobs': { schema: RefyneJobListSchema },
  'GET /jobs/:id': { schema: RefyneJobSchema },
  'POST /jobs/:id/cancel': { schema: RefyneJobSchema },
  'GET /jobs/:id/debug-capture': { schema: RefyneDebugCaptureSchema },
  'GET /jobs/:id/webhooks': { schema: RefyneJobDeliveriesSchema },
  'GET /jobs/:id/webhook-deliveries': { schema: RefyneJobDeliveriesSchema },
  'GET /jobs/:id/download': { schema: RefyneDownloadSchema },
  'GET /schemas': { schema: RefyneSchemaListSchema },
  'POST /schemas': { schema: RefyneSchemaSchema },
  'GET /schemas/:id': { schema: RefyneSchemaSchema },
  'PUT /schemas/:id': { schema: RefyneSchemaSchema },
  'GET /sites': { schema: RefyneSiteListSchema },
  'POST /sites': { schema: RefyneSiteSchema },
  'GET /sites/:id': { schema: RefyneSiteSchema },
  'PUT /sites/:id': { schema: RefyneSiteSchema },
  'GET /keys': { schema: RefyneApiKeyListSchema },
  'POST /keys': { schema: RefyneCreatedApiKeySchema },
  'GET /llm/providers': { schema: RefyneProviderListSchema },
  'GET /llm/keys': { schema: RefyneLlmKeyListSchema },
  'PUT /llm/keys': { schema: RefyneLlmKeySchema },
  'GET /llm/chain': { schema: RefyneChainSchema },
  'PUT /llm/chain': { schema: RefyneChainSchema },
  'GET /llm/models/:provider': { schema: RefyneModelListSchema },
  'GET /webhooks': { schema: RefyneWebhookListSchema, from: list('webhooks', webhook) },
  'POST /webhooks': { schema: RefyneWebhookSchema, from: webhook },
  'GET /webhooks/:id': { schema: RefyneWebhookSchema, from: webhook },
  'PUT /webhooks/:id': { schema: RefyneWebhookSchema, from: webhook },
  'GET /webhooks/:id/deliveries': { schema: RefyneWebhookDeliveriesSchema },
  'GET /usage': { schema: RefyneUsageTotalsSchema },
  'GET /health': { schema: RefyneHealthSchema },
  'GET /pricing/tiers': { schema: RefyneTierListSchema, from: list('tiers', tier) },
  'GET /cleaners': { schema: RefyneCleanerListSchema },
};

/** The view of a route (by method and registered pattern) for an answer status; an extract's 202 included. */
export function refyneView(method: string, pattern: string | undefined, status: number): RefyneView | null {
  if (!pattern?.startsWith(API_PREFIX)) return null;
  const route = `${method} ${pattern.slice(API_PREFIX.length)}`;
  if (route === 'POST /extract' && status === 202) return { schema: RefyneCrawlJobSchema };
  return VIEWS[route] ?? null;
}
