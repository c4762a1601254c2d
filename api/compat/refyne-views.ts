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
  /** The product's model the answer follows (types.py of its SDK), named in the OpenAPI description. */
  model: string;
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
  'POST /extract': { model: 'ExtractOutputBody', schema: RefyneExtractSchema },
  'POST /crawl': { model: 'CrawlJobResponseBody', schema: RefyneCrawlJobSchema, from: crawlJob },
  'POST /analyze': { model: 'AnalyzeResponseBody', schema: RefyneAnalyzeSchema },
  'GET /jobs': { model: 'ListJobsOutputBody', schema: RefyneJobListSchema },
  'GET /jobs/:id': { model: 'JobResponse', schema: RefyneJobSchema },
  'POST /jobs/:id/cancel': { model: 'JobResponse', schema: RefyneJobSchema },
  'GET /jobs/:id/debug-capture': { model: 'GetJobDebugCaptureOutputBody', schema: RefyneDebugCaptureSchema },
  'GET /jobs/:id/webhooks': { model: 'GetJobWebhookDeliveriesOutputBody', schema: RefyneJobDeliveriesSchema },
  'GET /jobs/:id/webhook-deliveries': {
    model: 'GetJobWebhookDeliveriesOutputBody',
    schema: RefyneJobDeliveriesSchema,
  },
  'GET /jobs/:id/download': { model: 'GetJobResultsDownloadOutputBody', schema: RefyneDownloadSchema },
  'GET /schemas': { model: 'ListSchemasOutputBody', schema: RefyneSchemaListSchema },
  'POST /schemas': { model: 'SchemaOutput', schema: RefyneSchemaSchema },
  'GET /schemas/:id': { model: 'SchemaOutput', schema: RefyneSchemaSchema },
  'PUT /schemas/:id': { model: 'SchemaOutput', schema: RefyneSchemaSchema },
  'GET /sites': { model: 'ListSavedSitesOutputBody', schema: RefyneSiteListSchema },
  'POST /sites': { model: 'SavedSiteOutput', schema: RefyneSiteSchema },
  'GET /sites/:id': { model: 'SavedSiteOutput', schema: RefyneSiteSchema },
  'PUT /sites/:id': { model: 'SavedSiteOutput', schema: RefyneSiteSchema },
  'GET /keys': { model: 'ListKeysOutputBody', schema: RefyneApiKeyListSchema },
  'POST /keys': { model: 'CreateKeyOutputBody', schema: RefyneCreatedApiKeySchema },
  'GET /llm/providers': { model: 'ListProvidersOutputBody', schema: RefyneProviderListSchema },
  'GET /llm/keys': { model: 'ListUserServiceKeysOutputBody', schema: RefyneLlmKeyListSchema },
  'PUT /llm/keys': { model: 'UserServiceKeyResponse', schema: RefyneLlmKeySchema },
  'GET /llm/chain': { model: 'GetUserFallbackChainOutputBody', schema: RefyneChainSchema },
  'PUT /llm/chain': { model: 'SetUserFallbackChainOutputBody', schema: RefyneChainSchema },
  'GET /llm/models/:provider': { model: 'UserListModelsOutputBody', schema: RefyneModelListSchema },
  'GET /webhooks': {
    model: 'ListWebhooksOutputBody',
    schema: RefyneWebhookListSchema,
    from: list('webhooks', webhook),
  },
  'POST /webhooks': { model: 'WebhookResponse', schema: RefyneWebhookSchema, from: webhook },
  'GET /webhooks/:id': { model: 'WebhookResponse', schema: RefyneWebhookSchema, from: webhook },
  'PUT /webhooks/:id': { model: 'WebhookResponse', schema: RefyneWebhookSchema, from: webhook },
  'GET /webhooks/:id/deliveries': {
    model: 'ListWebhookDeliveriesOutputBody',
    schema: RefyneWebhookDeliveriesSchema,
  },
  'GET /usage': { model: 'GetUsageOutputBody', schema: RefyneUsageTotalsSchema },
  'GET /health': { model: 'HealthCheckOutputBody', schema: RefyneHealthSchema },
  'GET /pricing/tiers': {
    model: 'ListTierLimitsOutputBody',
    schema: RefyneTierListSchema,
    from: list('tiers', tier),
  },
  'GET /cleaners': { model: 'ListCleanersOutputBody', schema: RefyneCleanerListSchema },
};

/** The view of a route (by method and registered pattern) for an answer status; an extract's 202 included. */
export function refyneView(method: string, pattern: string | undefined, status: number): RefyneView | null {
  if (!pattern?.startsWith(API_PREFIX)) return null;
  const route = `${method} ${pattern.slice(API_PREFIX.length)}`;
  if (route === 'POST /extract' && status === 202)
    return { model: 'CrawlJobResponseBody', schema: RefyneCrawlJobSchema };
  return VIEWS[route] ?? null;
}

/**
 * What the OpenAPI description of an operation says about the refyne version (path as the document spells it,
 * `/api/v1/jobs/{id}`): the product's model its answer follows, or that a delete answers {"success": true}.
 */
export function refyneNote(method: string, documentPath: string): string | null {
  if (!documentPath.startsWith(API_PREFIX)) return null;
  const route = `${method.toUpperCase()} ${documentPath.slice(API_PREFIX.length).replace(/\{(\w+)\}/g, ':$1')}`;
  if (method.toUpperCase() === 'DELETE') return 'API version refyne: 200 {"success": true} instead of 204.';
  const view = VIEWS[route];
  return view ? `API version refyne: the Refyne product's ${view.model}, its fields only.` : null;
}
