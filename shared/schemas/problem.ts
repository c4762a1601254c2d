import { z } from 'zod';

export const ProblemErrorSchema = z.object({
  location: z
    .string()
    .meta({ description: 'Where the bad value is, e.g. body.options.max_pages or header.authorization' }),
  message: z.string(),
  value: z.unknown().optional(),
});

export const ProblemSchema = z
  .object({
    type: z.string().meta({ description: 'URI identifying the kind of error' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().meta({ description: 'The request path that failed' }),
    errors: z.array(ProblemErrorSchema),
    error_category: z.string().optional().meta({ description: 'For job failures: the job error category' }),
    job_id: z.string().optional().meta({ description: 'For job failures: the job that failed' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem document (application/problem+json)' });
export type Problem = z.infer<typeof ProblemSchema>;

/** Standard error responses every authenticated route may answer. */
export const standardErrors = {
  401: ProblemSchema,
  403: ProblemSchema,
  404: ProblemSchema,
  413: ProblemSchema,
  422: ProblemSchema,
  429: ProblemSchema,
  500: ProblemSchema,
} as const;

/**
 * A route that starts a job: 409 when its Idempotency-Key was used for another kind of job, 503 (with
 * Retry-After) when the workflow service is out of reach.
 */
export const jobStartErrors = { ...standardErrors, 409: ProblemSchema, 503: ProblemSchema } as const;

/**
 * A route that starts a job and waits for it (POST /extract, /analyze, /map): the job's failure is the answer,
 * its status by error category (shared/errors.ts CATEGORY_HTTP_STATUS): 409 cancelled, 410 content expired,
 * 502 upstream (fetch or model) failure, 504 timeout — besides the 401, 422 and 429 every route may give.
 */
export const waitedJobErrors = {
  ...jobStartErrors,
  410: ProblemSchema,
  502: ProblemSchema,
  504: ProblemSchema,
} as const;
