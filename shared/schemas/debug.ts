import { z } from 'zod';
import { ActionOutcomeSchema } from './actions.js';
import { ProvenanceSchema } from './common.js';

const CaptureSchema = z.object({
  id: z.string(),
  api_version: z.string(),
  job_type: z.string(),
  timestamp: z.string(),
  url: z.string(),
  is_byok: z.boolean(),
  sequence: z.number().int(),
  request: z.object({
    content_size: z.number().int(),
    fallback_position: z.number().int(),
    max_tokens: z.number().int(),
    prompt_size: z.number().int(),
    fetch_mode: z.string(),
    actions: z.array(ActionOutcomeSchema).optional(),
    model: z.string(),
    page_content: z.string(),
    prompt: z.string(),
    provider: z.string(),
    schema: z.string(),
    system_prompt: z.string(),
    user_prompt: z.string(),
    hints_applied: z.record(z.string(), z.string()),
    is_retry: z.boolean(),
    json_mode: z.boolean(),
    temperature: z.number(),
  }),
  response: z.object({
    cost_usd: z.number(),
    duration_ms: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    error: z.string(),
    error_category: z.string(),
    parse_error: z.string(),
    raw_output: z.string(),
    parsed_output: z.unknown(),
    success: z.boolean(),
    provenance: ProvenanceSchema.optional().meta({
      description:
        "On the answer the page's data came from: where each value came from (see JobResult.provenance)",
    }),
  }),
});

export const DebugCaptureReportSchema = z
  .object({
    api_version: z.string(),
    job_id: z.string(),
    job_type: z.string(),
    enabled: z.boolean(),
    is_byok: z.boolean(),
    total_cost_usd: z.number(),
    total_duration_ms: z.number().int(),
    total_requests: z.number().int(),
    total_tokens_in: z.number().int(),
    total_tokens_out: z.number().int(),
    captures: z.array(CaptureSchema),
  })
  .meta({
    id: 'DebugCaptureReport',
    description:
      'Each model call of a job run with capture_debug: the full request (prompts, page content sent, schema, ' +
      'model, temperature, max_tokens, fallback position, retry flag) and response (raw and parsed output, ' +
      'errors, tokens, cost, duration). Credentials are redacted. enabled=false and no captures otherwise.',
  });
