import { z } from 'zod';
import { INPUT_FORMATS } from '../schema-input.js';
import { DATA_SOURCES } from '../structured-data.js';
import {
  ActionOutcomeSchema,
  ActionsSchema,
  checkActionsMode,
  checkFormats,
  FormatsSchema,
  PageScreenshotSchema,
} from './actions.js';
import { CleanerStepSchema } from './cleaners.js';
import { FetchModeSchema, HttpUrlSchema, ProvenanceSchema, TimestampSchema } from './common.js';
import { LlmConfigSchema } from './llm.js';
import { WebhookSourceFields } from './webhooks.js';

export const SchemaInputSchema = z.union([z.string().min(1), z.record(z.string(), z.unknown())]).meta({
  id: 'SchemaInput',
  description:
    'What to extract: at most 20 kB (as text, or as JSON for an object), 200 fields and 5 levels of ' +
    'nesting. Three forms, detected in this order; the response reports which in input_format. (1) ' +
    'structured: an object (or YAML/JSON text) with name and fields, where fields is a list of field ' +
    'definitions [{name, type?, description?, required?, items?, properties?}] or a map of field names ' +
    'to types or definitions; optional description, and required: [field names] as in JSON Schema. ' +
    'Types: string, number, integer, boolean, array, object (aliases str, text, date, datetime, url, ' +
    'email, float, double, decimal, int, bool, list). A definition without type is an object when it has ' +
    'properties, an array when it has items, else a string; an array without items holds strings; an ' +
    'object definition needs properties; required is true/false, or on an object a list of its ' +
    'properties. Inside a definition, fields is another name for properties. Unknown keys and duplicate ' +
    'names are errors. name + fields is structured only when fields holds field definitions: {name: ' +
    'string, fields: [string]} is a fields map. (2) fields: any other object; each value is a type name, ' +
    'type[] or [type] for a list ([] a list of anything), a nested map for an object ({} any object), ' +
    '[{...}] for a list of objects, or a definition map {type, description?, required?, items?, ' +
    'properties?} (only those keys, with type or properties); a key required listing sibling keys marks ' +
    'them required. An object that fits neither form is a 422 whose errors[0].location names the ' +
    'offending key (e.g. body.schema.price, body.schema.fields.2.type) and whose message lists the valid ' +
    'types; an object is never read as a prompt. (3) prompt: any other text. Text is a schema when it is ' +
    'a JSON object, or YAML with a type name among its values (or name + fields); YAML-shaped prose such ' +
    'as "Extract: the title" stays a prompt, while broken JSON, or broken multi-line YAML, that was ' +
    'meant as a schema is a 422.',
});

export { CleanerStepSchema };

/** The two ways to give a request its schema; exactly one is required. */
export const SchemaSourceFields = {
  schema: SchemaInputSchema.optional().meta({
    description: 'The schema inline (see SchemaInput). Give either schema or schema_id, not both (422).',
  }),
  schema_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({
      description:
        'A stored schema (POST /api/v1/schemas) to use instead of schema: yours or a public one, else 422 at ' +
        "body.schema_id. Each job created with it adds one to the schema's usage_count.",
    }),
};

/** For the document: exactly one of schema and schema_id (checkSchemaSource checks it). */
export const ONE_SCHEMA_SOURCE = { oneOf: [{ required: ['schema'] }, { required: ['schema_id'] }] };

/** Both schema and schema_id, or neither, is a 422 naming the field to change. */
export function checkSchemaSource(body: { schema?: unknown; schema_id?: string }, ctx: z.RefinementCtx) {
  if (body.schema !== undefined && body.schema_id !== undefined)
    ctx.addIssue({ code: 'custom', path: ['schema_id'], message: 'give schema or schema_id, not both' });
  else if (body.schema === undefined && body.schema_id === undefined)
    ctx.addIssue({ code: 'custom', path: ['schema'], message: 'required: give schema or schema_id' });
}

const BUDGET_RULES =
  'Checked before every model call (retries and fallbacks along the model chain are calls too): the call ' +
  "is made only if its worst case — its prompt counted at 2 characters a token plus the model's whole " +
  'max_tokens of output — cannot take the job past the cap; otherwise it is not made. A hard cap: calls ' +
  "in flight hold their worst case until they end, so the job's total never passes it. Pages answered " +
  'without the model (structured data, learned extractors) cost nothing. When the cap is reached an extract ' +
  'job fails with error_category quota_exceeded (POST /extract answers 429 problem, no model call made ' +
  'past the cap); a crawl starts no new page, lets pages in flight finish, records the refused page as ' +
  'skipped (quota_exceeded) and ends completed with budget_exhausted: true when at least one page was ' +
  'extracted, else failed with quota_exceeded. The job resource shows the cap and budget_exhausted. The ' +
  "tenant's monthly budget (set by the operator) applies the same way to all its jobs.";

/** The caps a job request may set on its model spend (extract, crawl, a site's crawl). */
export const BudgetFields = {
  max_cost_usd: z
    .number()
    .positive()
    .optional()
    .meta({
      description:
        'Most the job may spend on model calls, in USD: what the job is charged (cost_usd: list price × the ' +
        "service's markup on the service's keys; with your own key (BYOK) the provider's list price, " +
        'llm_cost_usd, which the provider bills you). A model without a known price counts 0. ' +
        BUDGET_RULES,
    }),
  max_tokens: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({
      description: `Most model tokens (input + output, over every call) the job may use. ${BUDGET_RULES}`,
    }),
};

/** The longest max_age: 30 days (pages are kept PAGE_RETENTION_DAYS, 30 by default). */
export const MAX_AGE_LIMIT_S = 30 * 86_400;
const AGE_UNITS_S = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** A max_age ("2h", "30m", "45s", "1d", or seconds as a number) in seconds; null when it is not one. */
export function maxAgeSeconds(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  const match = /^\s*(\d{1,9}(?:\.\d{1,3})?)\s*([smhd])\s*$/i.exec(value);
  if (!match) return null;
  return Number(match[1]) * AGE_UNITS_S[(match[2] as string).toLowerCase() as keyof typeof AGE_UNITS_S];
}

/** Exactly what maxAgeSeconds reads, so the OpenAPI document says precisely which texts are accepted. */
const MAX_AGE_PATTERN = /^\s*\d{1,9}(?:\.\d{1,3})?\s*[smhdSMHD]\s*$/;

// Longer than MAX_AGE_LIMIT_S is taken as the limit (maxAgeInput): pages are not kept longer anyway.
export const MaxAgeSchema = z
  .union([
    z.number().min(0),
    z.string().max(20).regex(MAX_AGE_PATTERN, {
      message: 'must be a duration such as 2h, 30m, 45s or 1d, or seconds as a number',
    }),
  ])
  .meta({
    id: 'MaxAge',
    description:
      'Reuse a page this tenant fetched (same URL, normalised as the crawl does; the same fetch_mode, or any mode for auto) within this age instead of fetching it: e.g. "2h", "30m", "45s", "1d", or seconds as a number; more than 30d is taken as 30d. Default 0: always fetch. A reused page makes no request to the site (robots.txt included) and its result says from_cache: true with the time it was fetched. A dynamic-mode page that its own scripts (or a meta refresh) took to another origin than the one that answered (HTTP redirects aside) is never reused for the URL, as its content is not the content of that URL (its own job keeps it for re-extract). Pages are kept PAGE_RETENTION_DAYS (operator setting), so an older page is fetched again.',
    example: '2h',
  });

/** The workflow input's maxAgeMs for a request's max_age (nothing for 0 or none). */
export function maxAgeInput(body: { max_age?: string | number }): { maxAgeMs?: number } {
  const seconds = body.max_age === undefined ? null : maxAgeSeconds(body.max_age);
  return seconds ? { maxAgeMs: Math.round(Math.min(seconds, MAX_AGE_LIMIT_S) * 1000) } : {};
}

export const ExtractRequestSchema = z
  .object({
    url: HttpUrlSchema.meta({ description: 'http(s) URL of the page' }),
    ...SchemaSourceFields,
    fetch_mode: FetchModeSchema.default('auto'),
    actions: ActionsSchema.optional(),
    formats: FormatsSchema.optional(),
    cleaner_chain: z
      .array(CleanerStepSchema)
      .min(1)
      .max(10)
      .optional()
      .meta({
        description:
          'Ordered content cleaners applied before the model sees the page. Default: [markdown] (page chrome ' +
          'dropped) without link targets and image URLs, unless a field of the schema (its name or description) ' +
          'or the prompt asks for links, URLs or images — then with them. The prompt names the format the chain ' +
          'produced (markdown, text or html). Cleaning a page ' +
          "has a time limit (the service's HTML_TIMEOUT_MS, default 15 s): a page over it fails with " +
          'processing_timeout, a page too large for the cleaner to hold in memory with content_too_large.',
      }),
    llm_config: LlmConfigSchema.optional(),
    capture_debug: z.boolean().default(false).meta({
      description: 'Store each model request and response; read them at /api/v1/jobs/{id}/debug-capture.',
    }),
    structured_data: z
      .boolean()
      .default(true)
      .meta({
        description:
          "Answer from the page's structured data first (JSON-LD incl. @graph, microdata, RDFa Lite, " +
          'OpenGraph/meta tags). Fields are matched by name and schema.org property (name/title, price from ' +
          'offers.price, currency from offers.priceCurrency, sku, brand.name, image, datePublished, author.name, ' +
          "…) and each value is checked against the field's type. The visible page wins: a text value is taken " +
          "only when it occurs in the page's cleaned text (ignoring case and whitespace), a number only when the " +
          'page shows it in any spelling, an availability only when the buy button (or, without one, a stock ' +
          'label) agrees; offers or entities that disagree, a price the page strikes through, and an author or ' +
          "brand that is the site's own name are left to the model. A string field gets the value as a reader " +
          'sees it: a price as the page spells it with its currency ("88,00 €", "$1,299.00"), an availability ' +
          'as an English label ("In stock", "Out of stock", "Pre-order", "Backorder", "Discontinued"), a ' +
          'duration spelled out ("1 hour 30 minutes"), a date as the data states it (ISO 8601), a list one item ' +
          'a line; number and boolean fields get numbers and true/false. When every field (required and optional) is ' +
          'answered the page costs no model call and 0 tokens; otherwise the model is asked for the missing ' +
          "fields only and the answers merge. A list of objects (a listing's items) is taken from a JSON-LD " +
          "ItemList or the page's entities of one type only when every element maps. Prompt schemas and object " +
          'fields always go to the model. Page ' +
          'metadata says data_source (structured_data, model or mixed) and structured_fields. false: every ' +
          'page goes to the model.',
      }),
    max_age: MaxAgeSchema.optional(),
    ...WebhookSourceFields,
    ...BudgetFields,
  })
  .strict()
  .superRefine(checkSchemaSource)
  .superRefine(checkActionsMode)
  .superRefine(checkFormats)
  .meta({ id: 'ExtractRequest', ...ONE_SCHEMA_SOURCE });
export type ExtractRequest = z.infer<typeof ExtractRequestSchema>;

export const UsageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  llm_cost_usd: z.number().meta({ description: "Tokens × the model's list price" }),
  cost_usd: z.number().meta({ description: 'What the caller is charged' }),
  is_byok: z.boolean(),
});

export const ExtractResponseSchema = z
  .object({
    data: z.unknown(),
    fetched_at: TimestampSchema,
    input_format: z.enum(INPUT_FORMATS),
    job_id: z.string(),
    url: z.string(),
    metadata: z.object({
      extract_duration_ms: z.number().int(),
      fetch_duration_ms: z.number().int(),
      clean_duration_ms: z.number().int().meta({ description: 'Time the cleaner chain took on the page' }),
      model: z.string(),
      provider: z.string(),
      fetch_mode: z.string(),
      from_cache: z.boolean().meta({
        description:
          'true when the page came from the page store instead of the network (max_age, POST ' +
          '/jobs/{id}/reextract, retry with refetch false); fetched_at is then when it was fetched',
      }),
      content_type: z.string().meta({
        description:
          'What was read: text/html, text/plain, application/pdf, or the DOCX, XLSX or PPTX type (documents ' +
          'are read as HTML, with PDF pages as sections); empty for pages recorded before it was recorded',
        example: 'application/pdf',
      }),
      actions: z.array(ActionOutcomeSchema).optional().meta({
        description: "With actions only: each step's outcome (kind, ms, ok or error, clicks, scrolls).",
      }),
      screenshots: z.array(PageScreenshotSchema).optional().meta({
        description:
          "With formats screenshot or screenshot actions only: the page's screenshots, their sizes and URLs",
      }),
      final_url: z.string(),
      fallback_position: z.number().int(),
      price_known: z
        .boolean()
        .meta({ description: 'false when the model has no known price (cost reported as 0)' }),
      data_source: z.enum(DATA_SOURCES).meta({
        description:
          "Where data came from: the page's structured data alone (no model call; provider and model are " +
          'empty), a learned extractor (crawls only), the model alone, or more than one of them.',
      }),
      structured_fields: z
        .array(z.string())
        .meta({ description: "The fields answered from the page's structured data" }),
      provenance: ProvenanceSchema,
    }),
    usage: UsageSchema,
  })
  .meta({ id: 'ExtractResponse' });
export type ExtractResponse = z.infer<typeof ExtractResponseSchema>;

export const AcceptedJobSchema = z
  .object({
    job_id: z.string(),
    status: z.string(),
    status_url: z.string(),
    queue_position: z.number().int(),
  })
  .meta({ id: 'AcceptedJob', description: 'The job goes on; poll status_url.' });
