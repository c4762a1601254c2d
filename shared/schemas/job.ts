import { z } from 'zod';
import { JOB_STATUSES } from '../reducers/job.js';
import { JOB_TYPES } from '../temporal-names.js';
import { ErrorCategorySchema, PaginationQuerySchema, TimestampSchema } from './common.js';
import {
  BudgetFields,
  checkSchemaSource,
  ExtractRequestSchema,
  ONE_SCHEMA_SOURCE,
  SchemaSourceFields,
} from './extract.js';

export const JobStatusSchema = z.enum(JOB_STATUSES).meta({
  id: 'JobStatus',
  description:
    'pending → running → completed | failed | cancelled. A crawl with some failed pages is completed, with ' +
    'error_category/error_message summarising the failures.',
});

export const JobSchema = z
  .object({
    id: z.string(),
    type: z.enum(JOB_TYPES),
    url: z.string(),
    status: JobStatusSchema,
    created_at: TimestampSchema,
    started_at: TimestampSchema.nullable(),
    completed_at: TimestampSchema.nullable(),
    duration_ms: z.number().int().nullable(),
    page_count: z.number().int(),
    failed_count: z.number().int(),
    urls_queued: z.number().int(),
    token_usage_input: z.number().int(),
    token_usage_output: z.number().int(),
    llm_cost_usd: z.number(),
    cost_usd: z.number(),
    is_byok: z.boolean(),
    pages_by_source: z
      .object({
        structured_data: z.number().int(),
        learned_extractor: z.number().int(),
        model: z.number().int(),
        mixed: z.number().int(),
      })
      .meta({
        description:
          "Completed pages by where their data came from: the page's structured data alone (no model call, 0 " +
          'tokens; structured_data on the request), a learned extractor alone (selectors learned from the ' +
          "model's answers on earlier pages of the same template; no model call; learn_extractors on crawls), " +
          'the model alone, or more than one of them. A page re-done after a failed check counts once, by its ' +
          "new source. Tokens and cost are the model's only.",
      }),
    values_by_source: z
      .object({
        structured_data: z.number().int(),
        learned_extractor: z.number().int(),
        model: z.number().int(),
        model_not_in_page: z
          .number()
          .int()
          .meta({
            description:
              'Model values that do not occur in the content the model was sent (possible inventions; see ' +
              'provenance in GET /jobs/{id}/results?include_provenance=true)',
          }),
      })
      .meta({ description: "The completed pages' top-level field values by where each came from" }),
    error_category: ErrorCategorySchema.nullable(),
    error_message: z.string().nullable(),
    max_cost_usd: z
      .number()
      .nullable()
      .meta({ description: "The request's max_cost_usd (null: none given)" }),
    max_tokens: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The request's max_tokens (null: none given)" }),
    budget_exhausted: z.boolean().meta({
      description:
        "true when a budget (the job's max_cost_usd or max_tokens, or the tenant's monthly budget) refused a " +
        'model call and the job stopped taking pages: it is completed with the pages extracted before, or ' +
        'failed with error_category quota_exceeded when there were none.',
    }),
    capture_debug: z.boolean(),
    queue_position: z.number().int().meta({ description: "The tenant's pending jobs ahead of this one" }),
    workflow_id: z.string().meta({ description: 'Temporal workflow id (derived from the job id)' }),
    retry_of: z.string().nullable().meta({ description: 'The job this one retries (POST /jobs/{id}/retry)' }),
    reextract_of: z.string().nullable().meta({
      description:
        'The job whose stored pages this one extracts again, without fetching them (POST /jobs/{id}/reextract)',
      example: 'job_3f2a9c0e5b7d4e1f8a6c2b9d0e4f7a1c',
    }),
    monitor_id: z.string().nullable().meta({
      description: 'The monitor whose run this job is (POST /monitors); null for other jobs',
      example: 'mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b',
    }),
  })
  .meta({ id: 'Job' });
export type Job = z.infer<typeof JobSchema>;

/** A query parameter, so a retry stays a POST without a body (as clients send it). */
export const RetryQuerySchema = z.object({
  refetch: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .meta({
      description:
        'false: failed pages whose fetch had succeeded (they failed later, e.g. at the model) run again from ' +
        'the page the original job stored, with no request to the site; pages without a stored page are ' +
        'fetched. Default true: every failed page is fetched again.',
      example: 'false',
    }),
});

export const ReextractRequestSchema = z
  .object({
    ...SchemaSourceFields,
    cleaner_chain: ExtractRequestSchema.shape.cleaner_chain.meta({
      description:
        "Cleaners for the stored pages (see ExtractRequest). Default: the original job's chain when the schema " +
        'is unchanged in kind, else the default chain for the new schema.',
    }),
    llm_config: ExtractRequestSchema.shape.llm_config,
    structured_data: ExtractRequestSchema.shape.structured_data.unwrap().optional().meta({
      description: "Default: the original job's structured_data.",
    }),
    capture_debug: ExtractRequestSchema.shape.capture_debug.unwrap().optional().meta({
      description: "Default: the original job's capture_debug.",
    }),
    ...BudgetFields,
  })
  .strict()
  .superRefine(checkSchemaSource)
  .meta({
    id: 'ReextractRequest',
    ...ONE_SCHEMA_SOURCE,
    description:
      "A new schema (schema or schema_id) and optionally cleaners, model settings and budget for a job's stored pages.",
    example: { schema: { title: 'string', price: 'number', in_stock: 'boolean' } },
  });
export type ReextractRequest = z.infer<typeof ReextractRequestSchema>;

export const JobListSchema = z.object({ jobs: z.array(JobSchema) }).meta({ id: 'JobList' });

export const JobListQuerySchema = PaginationQuerySchema.extend({
  type: z.enum(JOB_TYPES).optional().meta({ description: 'Only jobs of this type.' }),
  status: JobStatusSchema.optional().meta({ description: 'Only jobs in this status.' }),
});
export type JobListQuery = z.infer<typeof JobListQuerySchema>;
