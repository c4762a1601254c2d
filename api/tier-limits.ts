// The tenant's tier limits on starting work (shared/tiers.ts): jobs running at once, and pages per crawl.
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';

/** What a job-starting request must wait for when the tier's concurrent jobs are all running. */
export const BUSY_RETRY_AFTER_S = 5;

const JOB_TYPES_QUERY = '("extract","crawl","analyze","map")';

/**
 * Refuses a new job while the tenant runs its tier's max_concurrent_jobs already: counted from Temporal's
 * visibility (every job workflow carries its tenant), so starts racing each other may pass the limit by the
 * starts in flight. A 429 problem with Retry-After.
 */
export async function admitJob(deps: ApiDeps, tenantId: string, maxConcurrentJobs: number | null) {
  if (maxConcurrentJobs === null) return;
  const query = `ExecutionStatus="Running" AND ExtractTenant="${tenantId}" AND ExtractJobType IN ${JOB_TYPES_QUERY}`;
  const { count } = await deps.temporal.workflow.count(query);
  if (count < maxConcurrentJobs) return;
  throw new ProblemError({
    slug: 'too-many-jobs',
    detail:
      `Your pricing tier runs at most ${maxConcurrentJobs} jobs at once and ${count} are running; retry when ` +
      'one has ended (GET /api/v1/pricing/tiers shows your limits).',
    retryAfter: BUSY_RETRY_AFTER_S,
  });
}

/** A crawl asking more pages than the tier allows is a 422 at body.options.max_pages. */
export function checkCrawlPages(maxPages: number | undefined, tierMax: number | null) {
  if (tierMax === null || maxPages === undefined || maxPages <= tierMax) return;
  const location = 'body.options.max_pages';
  throw new ProblemError({
    slug: 'validation-error',
    detail: `The request has invalid fields: ${location}`,
    errors: [
      {
        location,
        message: `your pricing tier allows at most ${tierMax} pages per crawl (GET /api/v1/pricing/tiers)`,
        value: maxPages,
      },
    ],
  });
}
