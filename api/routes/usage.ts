// GET /usage: the caller's tenant's jobs and model spend over a period (default: this calendar month, UTC),
// from the job and result projections of the event log.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { standardErrors } from '../../shared/schemas/problem.js';
import { UsageQuerySchema, UsageSchema } from '../../shared/schemas/usage.js';
import { UsageTally } from '../../shared/usage.js';
import type { ApiDeps } from '../deps.js';
import { ProblemError } from '../problem.js';

const DESCRIPTION = `Totals over the jobs your tenant created in the period (every type and status; a job counts on
the day it was created): how many, how many ran on your own provider keys (BYOK), what they were charged (cost_usd)
and the list price of their model calls (llm_cost_usd), with tokens; broken down by day and job type, and by the
provider and model that answered each page (pages answered from structured data or a learned extractor called no
model and count in neither). Read from the job and result projections of the event log, so a job still running
counts what it has spent so far. The period is at most 366 days. refyne version: the product's GetUsageOutputBody
({total_jobs, byok_jobs, total_charged_usd}) over the same period.`;

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

function period(query: { from?: string; to?: string }, now = new Date()) {
  const today = now.toISOString().slice(0, 10);
  const from = query.from ?? `${today.slice(0, 7)}-01`;
  const to = query.to ?? today;
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS;
  const refuse = (message: string) =>
    new ProblemError({
      slug: 'validation-error',
      detail: 'The request has invalid fields: query.to',
      errors: [{ location: 'query.to', message, value: to }],
    });
  if (days < 0) throw refuse('is before from');
  if (days > MAX_DAYS) throw refuse(`at most ${MAX_DAYS} days after from`);
  return { from, to };
}

/** Jobs this many at a time have their pages read. */
const PAGE_READS = 8;

export const usageRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/usage',
      {
        schema: {
          summary: 'Your jobs and model spend over a period, by day, job type, provider and model',
          description: DESCRIPTION,
          tags: ['usage'],
          querystring: UsageQuerySchema,
          response: { 200: UsageSchema, ...standardErrors },
        },
      },
      async (request) => {
        const { from, to } = period(request.query);
        const tally = new UsageTally();
        for await (const batch of deps.jobs.newestFirst(request.tenant._id)) {
          const inPeriod = batch.filter((job) => {
            const day = job.created_at.slice(0, 10);
            return day >= from && day <= to;
          });
          for (let i = 0; i < inPeriod.length; i += PAGE_READS) {
            await Promise.all(
              inPeriod.slice(i, i + PAGE_READS).map(async (job) => {
                tally.job(job);
                for await (const pages of deps.jobs.resultBatches(job))
                  for (const page of pages) tally.page(page);
              }),
            );
          }
          // Job numbers follow creation: once a batch reaches before the period, the rest is older still.
          if (batch.some((job) => job.created_at.slice(0, 10) < from)) break;
        }
        return { from, to, ...tally.report() };
      },
    );
  };
