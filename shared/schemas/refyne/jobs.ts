// API version `refyne`: the response models of the Refyne product's published SDKs (refyne 0.1.46, types.py,
// generated from the product's own OpenAPI document), for extraction, jobs and their sub-resources. Those
// models refuse unknown fields, so each schema here lists exactly their fields: parsing an answer of ours with
// one keeps those fields and drops the rest (zod objects strip unknown keys). Not in the OpenAPI document,
// which describes version v1; the routes' descriptions say what differs.
import { z } from 'zod';

const str = z.string();
const int = z.number().int();
const num = z.number();
const bool = z.boolean();
/** `X | None = None` in the product's models. */
const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const RefyneUsageSchema = z.object({
  cost_usd: num,
  input_tokens: int,
  is_byok: bool,
  llm_cost_usd: num,
  output_tokens: int,
});

export const RefyneExtractSchema = z.object({
  data: z.unknown(),
  fetched_at: str,
  input_format: str,
  job_id: str,
  metadata: z.object({ extract_duration_ms: int, fetch_duration_ms: int, model: str, provider: str }),
  url: str,
  usage: RefyneUsageSchema,
});

export const RefyneCrawlJobSchema = z.object({
  cost_usd: opt(num),
  data: opt(z.record(z.string(), z.unknown())),
  duration_ms: opt(int),
  error_message: opt(str),
  job_id: str,
  page_count: opt(int),
  queue_position: opt(int),
  status: str,
  status_url: opt(str),
  token_usage: opt(z.object({ input: int, output: int })),
});

export const RefyneDetectedElementSchema = z.object({
  count: opt(int),
  description: str,
  name: str,
  type: str,
});
export const RefyneFollowPatternSchema = z.object({
  description: str,
  pattern: str,
  sample_urls: opt(z.array(str)),
});
export const RefyneAnalysisSchema = z.object({
  detected_elements: z.array(RefyneDetectedElementSchema),
  follow_patterns: z.array(RefyneFollowPatternSchema),
  page_type: str,
  recommended_fetch_mode: str,
  sample_links: z.array(str),
  site_summary: str,
  suggested_schema: str,
});
export const RefyneAnalyzeSchema = RefyneAnalysisSchema.extend({ job_id: str, sample_data: z.unknown() });

export const RefyneJobSchema = z.object({
  capture_debug: bool,
  completed_at: opt(str),
  cost_usd: num,
  created_at: str,
  error_category: opt(str),
  error_message: opt(str),
  id: str,
  page_count: int,
  queue_position: int,
  started_at: opt(str),
  status: str,
  token_usage_input: int,
  token_usage_output: int,
  type: str,
  url: str,
  urls_queued: int,
});
export const RefyneJobListSchema = z.object({ jobs: z.array(RefyneJobSchema) });

/** What the SDK's JobResults reads: one entry per completed page, or the merged object. */
export const RefyneResultEntrySchema = z.object({ id: str, url: str, data: z.unknown() });
export const RefyneJobResultsHeadSchema = z.object({ job_id: str, status: str, page_count: int });

export const RefyneCrawlMapEntrySchema = z.object({
  completed_at: opt(str),
  depth: int,
  discovered_at: opt(str),
  error_category: opt(str),
  error_details: opt(str),
  error_message: opt(str),
  extract_duration_ms: int,
  fetch_duration_ms: int,
  id: str,
  llm_model: opt(str),
  llm_provider: opt(str),
  parent_url: opt(str),
  status: str,
  token_usage_input: int,
  token_usage_output: int,
  url: str,
});

const CaptureRequestSchema = z.object({
  content_size: int,
  fallback_position: opt(int),
  fetch_mode: opt(str),
  hints_applied: opt(z.record(z.string(), str)),
  is_retry: opt(bool),
  json_mode: opt(bool),
  max_tokens: opt(int),
  model: str,
  page_content: opt(str),
  prompt: opt(str),
  prompt_size: int,
  provider: str,
  schema: opt(str),
  system_prompt: opt(str),
  temperature: opt(num),
  user_prompt: opt(str),
});
const CaptureResponseSchema = z.object({
  cost_usd: opt(num),
  duration_ms: int,
  error: opt(str),
  error_category: opt(str),
  input_tokens: int,
  output_tokens: int,
  parse_error: opt(str),
  parsed_output: z.unknown(),
  raw_output: opt(str),
  success: bool,
});
export const RefyneDebugCaptureSchema = z.object({
  api_version: opt(str),
  captures: z.array(
    z.object({
      api_version: opt(str),
      id: str,
      is_byok: opt(bool),
      job_type: str,
      request: CaptureRequestSchema,
      response: CaptureResponseSchema,
      sequence: opt(int),
      timestamp: str,
      url: str,
    }),
  ),
  enabled: bool,
  is_byok: opt(bool),
  job_id: str,
  job_type: opt(str),
  total_cost_usd: opt(num),
  total_duration_ms: opt(int),
  total_requests: opt(int),
  total_tokens_in: opt(int),
  total_tokens_out: opt(int),
});

const deliveryFields = {
  attempt_number: int,
  created_at: str,
  delivered_at: opt(str),
  error_message: opt(str),
  event_type: str,
  id: str,
  max_attempts: int,
  response_time_ms: opt(int),
  status: str,
  status_code: opt(int),
  url: str,
  webhook_id: opt(str),
};
export const RefyneJobDeliveriesSchema = z.object({
  deliveries: z.array(z.object(deliveryFields)),
  job_id: str,
});
export const RefyneWebhookDeliveriesSchema = z.object({
  deliveries: z.array(z.object({ ...deliveryFields, job_id: str, next_retry_at: opt(str) })),
});

export const RefyneDownloadSchema = z.object({ download_url: str, expires_at: str, job_id: str });

/** The job stream's event data (SSEStatusEvent, SSEResultEvent, SSECompleteEvent, SSEErrorEvent). */
export const RefyneStreamDataSchemas = {
  status: z.object({ job_id: str, page_count: int, status: str, urls_queued: int }),
  result: z.object({
    error_category: opt(str),
    error_message: opt(str),
    id: str,
    llm_model: opt(str),
    llm_provider: opt(str),
    status: str,
    url: str,
  }),
  complete: z.object({
    cost_usd: opt(num),
    error_category: opt(str),
    error_message: opt(str),
    job_id: str,
    page_count: int,
    results_url: str,
    status: str,
  }),
  error: z.object({ message: str }),
} as const;
