// The job contract: what a job runs, as one zod union over the kinds of job that start a workflow. The API
// makes a JobSpec from a request, stores it in the job's job.created event and hands it (with the job's ids)
// to the workflow as its input; retry, re-extract, the start sweeper and monitors read it back with
// readJobSpec. Field names are the workflow inputs' of before (recorded histories still decode): add
// optional fields only. Workflows import the types alone (`import type`), never this module's zod.
import { z } from 'zod';
import { FIELD_TYPES, type Field } from '../schema-fields.js';
import { INPUT_FORMATS } from '../schema-input.js';
import type { JobType } from '../temporal-names.js';
import { WEBHOOK_EVENTS } from '../webhooks.js';
import { PageActionSchema } from './actions.js';
import { FetchModeSchema } from './common.js';

const FieldSchema: z.ZodType<Field> = z.lazy(() =>
  z.object({
    name: z.string(),
    type: z.enum(FIELD_TYPES),
    description: z.string().optional(),
    required: z.boolean(),
    items: FieldSchema.optional(),
    properties: z.array(FieldSchema).optional(),
  }),
);

/** A schema as normalizeSchema made it (shared/schema-input.ts). */
export const NormalizedSchemaSchema = z.object({
  input_format: z.enum(INPUT_FORMATS),
  name: z.string(),
  description: z.string().optional(),
  fields: z.array(FieldSchema),
  prompt: z.string().optional(),
});

/** A cleaner step as the job runs it: its name and options are checked when the chain runs (runChain). */
export const JobCleanerStepSchema = z.object({
  name: z.string(),
  options: z.record(z.string(), z.unknown()).optional(),
});
export type JobCleanerStep = z.infer<typeof JobCleanerStepSchema>;

/** The request's llm_config without its key: a key given in the request is stored with the job (hasKey). */
export const JobLlmConfigSchema = z.object({
  provider: z.string(),
  model: z.string(),
  baseUrl: z.string().optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().optional(),
  hasKey: z.boolean(),
});
export type JobLlmConfig = z.infer<typeof JobLlmConfigSchema>;

/** The request's max_cost_usd / max_tokens. */
export const JobBudgetSchema = z.object({
  maxCostUsd: z.number().optional(),
  maxTokens: z.number().optional(),
});
export type JobBudget = z.infer<typeof JobBudgetSchema>;

/** The job's webhook destinations as the workflow sees them: events only (URLs and secrets stay stored). */
export const WebhookPlanSchema = z.object({
  destinations: z.array(z.object({ events: z.array(z.enum(WEBHOOK_EVENTS)) })),
  /** Waits before attempts 2, 3, … (attempts = delays + 1). */
  retryDelaysMs: z.array(z.number()),
});
export type WebhookPlan = z.infer<typeof WebhookPlanSchema>;

/** An earlier job's stored page read instead of the network; when it is gone: fail (re-extract) or fetch (retry). */
export const StoredSourceSchema = z.object({
  jobId: z.string(),
  pageId: z.string(),
  missing: z.enum(['fail', 'fetch']),
});
export type StoredSource = z.infer<typeof StoredSourceSchema>;

/** A crawl's options as its workflow takes them: the request's, delay in ms. */
export const CrawlRunOptionsSchema = z.object({
  follow_selector: z.string().optional(),
  follow_pattern: z.string().optional(),
  next_selector: z.string().optional(),
  same_domain_only: z.boolean(),
  max_pages: z.number(),
  max_depth: z.number(),
  delay_ms: z.number(),
  concurrency: z.number(),
  respect_robots: z.boolean(),
  /** Continue as new after this many history events (tests lower it). */
  history_limit: z.number().optional(),
});
export type CrawlRunOptions = z.infer<typeof CrawlRunOptionsSchema>;

/** A page a crawl starts from (retries of failed pages, re-extracts). */
export const SeedSchema = z.object({
  url: z.string(),
  depth: z.number(),
  parentUrl: z.string().nullable().default(null),
  stored: StoredSourceSchema.optional(),
});
export type Seed = z.infer<typeof SeedSchema>;

/** What extract and crawl jobs share: the page(s) read, cleaned and extracted with a model. */
const extraction = {
  url: z.string(),
  fetchMode: FetchModeSchema,
  /** The request's page actions (dynamic mode). */
  actions: z.array(PageActionSchema).optional(),
  cleanerChain: z.array(JobCleanerStepSchema),
  schema: NormalizedSchemaSchema,
  captureDebug: z.boolean(),
  llm: JobLlmConfigSchema.optional(),
  /** The request's structured_data switch (absent in jobs started before it: on). */
  structuredData: z.boolean().optional(),
  /** Present only when the job has webhook destinations. */
  webhooks: WebhookPlanSchema.optional(),
  budget: JobBudgetSchema.optional(),
  /** The request's max_age in ms: reuse the tenant's page fetched within it (absent: always fetch). */
  maxAgeMs: z.number().optional(),
  /** A re-extract: the job whose stored pages it extracts again. */
  reextractOf: z.string().optional(),
};

export const ExtractSpecSchema = z.object({
  kind: z.literal('extract'),
  ...extraction,
  /** Re-extract, or a retry without a fetch: the earlier job's stored page (extractPageWorkflow only). */
  stored: StoredSourceSchema.optional(),
});

export const CrawlSpecSchema = z.object({
  kind: z.literal('crawl'),
  ...extraction,
  options: CrawlRunOptionsSchema,
  /** The request's learn_extractors switch (absent in jobs started before it: on). */
  learnExtractors: z.boolean().optional(),
  /** A stored site's crawl: the site whose learned extractors (and session) the crawl uses. */
  siteId: z.string().optional(),
  /** Start from these pages instead of the seed URL alone (retries of failed pages, re-extracts). */
  seeds: z.array(SeedSchema).optional(),
});

export const AnalyzeSpecSchema = z.object({
  kind: z.literal('analyze'),
  url: z.string(),
  /** 0: the page alone; 1: also a sample of the pages it links to. */
  depth: z.number(),
  fetchMode: FetchModeSchema,
  captureDebug: z.boolean(),
  webhooks: WebhookPlanSchema.optional(),
});

export const MapSpecSchema = z.object({
  kind: z.literal('map'),
  url: z.string(),
  limit: z.number(),
  includeSubdomains: z.boolean(),
  search: z.string().nullable().default(null),
  useSitemap: z.boolean(),
  ignoreQuery: z.boolean(),
  respectRobots: z.boolean(),
  webhooks: WebhookPlanSchema.optional(),
});

export const JobSpecSchema = z.discriminatedUnion('kind', [
  ExtractSpecSchema,
  CrawlSpecSchema,
  AnalyzeSpecSchema,
  MapSpecSchema,
]);
export type JobSpec = z.infer<typeof JobSpecSchema>;
export type JobKind = JobSpec['kind'];
export type SpecOf<K extends JobKind> = Extract<JobSpec, { kind: K }>;
export type ExtractSpec = SpecOf<'extract'>;
export type CrawlSpec = SpecOf<'crawl'>;
export type AnalyzeSpec = SpecOf<'analyze'>;
export type MapSpec = SpecOf<'map'>;

/** What a workflow input adds to its spec: the job's ids, and the seq its log continues from. */
export interface JobIds {
  jobId: string;
  tenantId: string;
  /** The API recorded job.created as seq 0; the workflow continues from here. */
  firstSeq: number;
}

/** A workflow's input: its job's spec without the kind (the workflow type says it), with the job's ids. */
export type WorkflowInputOf<K extends JobKind> = Omit<SpecOf<K>, 'kind'> & JobIds;
export type ExtractWorkflowInput = WorkflowInputOf<'extract'>;
export type AnalyzeWorkflowInput = WorkflowInputOf<'analyze'>;
export type MapWorkflowInput = WorkflowInputOf<'map'>;
/** The crawl workflow adds its run state (carried over continue-as-new) to this. */
export type CrawlJobInput = WorkflowInputOf<'crawl'>;

/** A stored record that is not a spec of its job's kind. */
export class UnreadableSpecError extends Error {}

/**
 * A spec as job.created stored it. Jobs recorded before specs had a kind stored the same fields without it:
 * their kind is the job's type. Throws UnreadableSpecError when the record is not a spec of that kind.
 */
export function readJobSpec(stored: Record<string, unknown>, jobType: JobType): JobSpec {
  const parsed = JobSpecSchema.safeParse({ kind: jobType, ...withoutNulls(stored) });
  if (!parsed.success) throw new UnreadableSpecError(`the job's stored spec: ${parsed.error.message}`);
  if (parsed.data.kind !== jobType)
    throw new UnreadableSpecError(`a ${jobType} job stored a ${parsed.data.kind} spec`);
  return parsed.data;
}

/**
 * The store writes a field set to undefined as null (`llm` of a request without llm_config, the link rules a
 * retry cleared): such a null is an absent field. A spec holds null nowhere else but in fields that default
 * to it (a map's search, a seed's parentUrl).
 */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  const kept = Object.entries(value).flatMap(([key, v]) => (v === null ? [] : [[key, cleaned(v)]]));
  return Object.fromEntries(kept);
}

function cleaned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cleaned);
  if (value !== null && typeof value === 'object') return withoutNulls(value as Record<string, unknown>);
  return value;
}
