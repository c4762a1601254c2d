import { z } from 'zod';
import { INPUT_FORMATS } from '../schema-input.js';
import { FetchModeSchema, HttpUrlSchema, TimestampSchema } from './common.js';

export const SchemaInputSchema = z.union([z.string().min(1), z.record(z.string(), z.unknown())]).meta({
  id: 'SchemaInput',
  description:
    'What to extract. One of: a {field: type} map (types string, number, integer, boolean, array/[type], ' +
    'nested objects); a structured schema (YAML or JSON text, or an object) with name and fields ' +
    '[{name, type, description?, required?, items?, properties?}]; or a free-form prompt. Detected in that ' +
    'order; the response reports the format in input_format.',
});

export const CleanerStepSchema = z
  .object({
    name: z.enum(['markdown', 'noop']).meta({ description: 'Cleaner name; see GET /api/v1/cleaners' }),
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const ExtractRequestSchema = z
  .object({
    url: HttpUrlSchema.meta({ description: 'http(s) URL of the page' }),
    schema: SchemaInputSchema,
    fetch_mode: FetchModeSchema.default('auto'),
    cleaner_chain: z
      .array(CleanerStepSchema)
      .min(1)
      .max(10)
      .default([{ name: 'markdown' }])
      .meta({
        description: 'Ordered content cleaners applied before the model sees the page; default [markdown].',
      }),
    capture_debug: z.boolean().default(false),
  })
  .strict()
  .meta({ id: 'ExtractRequest' });
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
      model: z.string(),
      provider: z.string(),
      fetch_mode: z.string(),
      final_url: z.string(),
      fallback_position: z.number().int(),
      price_known: z
        .boolean()
        .meta({ description: 'false when the model has no known price (cost reported as 0)' }),
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
