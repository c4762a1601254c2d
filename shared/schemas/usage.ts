// GET /usage: the tenant's jobs and model spend over a period, with breakdowns.
import { z } from 'zod';
import { JOB_TYPES } from '../temporal-names.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const dateParam = (description: string) =>
  z
    .string()
    .regex(DATE, { message: 'must be a date YYYY-MM-DD' })
    .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), { message: 'not a calendar date' })
    .optional()
    .meta({ description, example: '2026-11-01' });

export const UsageQuerySchema = z.object({
  from: dateParam('First day counted (UTC). Default: the first day of the current month.'),
  to: dateParam('Last day counted (UTC), at most 366 days after from. Default: today.'),
});

const jobTotals = {
  jobs: z.number().int(),
  byok_jobs: z.number().int().meta({ description: 'Jobs that ran on your own provider keys' }),
  charged_usd: z.number().meta({ description: 'What the jobs were charged (their cost_usd)' }),
  llm_cost_usd: z.number().meta({ description: "The model calls' list price" }),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
};
const modelTotals = {
  pages: z.number().int().meta({ description: 'Pages whose result this model gave' }),
  charged_usd: z.number(),
  llm_cost_usd: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
};

export const UsageSchema = z
  .object({
    from: z.string().meta({ description: 'First day counted (UTC)' }),
    to: z.string().meta({ description: 'Last day counted (UTC)' }),
    total_jobs: z
      .number()
      .int()
      .meta({ description: 'Jobs created in the period, of every type and status' }),
    byok_jobs: z.number().int().meta({ description: 'Of those, jobs that ran on your own provider keys' }),
    total_charged_usd: z
      .number()
      .meta({ description: "What they were charged: the sum of the jobs' cost_usd" }),
    llm_cost_usd: z.number().meta({ description: 'The list price of their model calls (llm_cost_usd)' }),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    by_day: z.array(z.object({ date: z.string(), ...jobTotals })).meta({
      description: 'Per day (UTC) a job was created on, days without jobs left out',
    }),
    by_job_type: z.array(z.object({ type: z.enum(JOB_TYPES), ...jobTotals })),
    by_provider: z.array(z.object({ provider: z.string(), ...modelTotals })).meta({
      description: "Per provider that answered pages: the pages' recorded model usage",
    }),
    by_model: z.array(z.object({ provider: z.string(), model: z.string(), ...modelTotals })),
  })
  .meta({ id: 'Usage' });
