// GET /jobs/{id}/crawl-map: every URL a job discovered, with its outcome (an extract's map is its one page).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobView } from '../../../shared/reducers/job.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { CrawlMapSchema } from '../../../shared/schemas/crawl.js';
import { standardErrors } from '../../../shared/schemas/problem.js';
import { pageOutcome } from '../../../shared/store/jobs.js';
import { CRAWL_IN_FLIGHT_QUERY } from '../../../shared/temporal-names.js';
import type { ApiDeps } from '../../deps.js';
import { notFound } from '../../problem.js';

export const crawlMapRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/jobs/:id/crawl-map',
      {
        schema: {
          summary: 'Every URL a crawl discovered, with its parent, depth, status, timings, tokens and model',
          description:
            'Entries are in discovery order. Status: pending, crawling (being fetched or extracted right now, as ' +
            'the running crawl reports it), completed, failed, skipped (robots.txt, not HTML, ' +
            'out of limits — error_details says which — or the job ended first). At most 50 skipped links are ' +
            'recorded per page, so a page of endless links cannot flood the map. Extract jobs have a one-page map.',
          tags: ['jobs'],
          params: IdParamsSchema,
          response: { 200: CrawlMapSchema, ...standardErrors },
        },
      },
      async (request) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        const entries = job.type === 'crawl' ? await deps.jobs.crawlMap(job) : await singlePageMap(deps, job);
        const crawling = await pagesInFlight(deps, job);
        for (const e of entries) if (e.status === 'pending' && crawling.has(e.node)) e.status = 'crawling';
        const failed = entries.filter((e) => e.status === 'failed');
        const byCategory: Record<string, number> = {};
        for (const e of failed)
          if (e.error_category) byCategory[e.error_category] = (byCategory[e.error_category] ?? 0) + 1;
        return {
          job_id: job.id,
          seed_url: job.url,
          max_depth: job.max_depth ?? 0,
          total: entries.length,
          completed: entries.filter((e) => e.status === 'completed').length,
          failed: failed.length,
          error_summary: {
            total: failed.length,
            has_rate_limit: 'rate_limit' in byCategory,
            by_category: byCategory,
          },
          entries: entries.map(({ node, ...e }) => ({
            ...e,
            clean_duration_ms: e.clean_duration_ms ?? null,
            data_source: e.data_source ?? null,
          })),
        };
      },
    );
  };

/** The nodes a running crawl is processing now; none when it is not running or does not answer quickly. */
async function pagesInFlight(deps: ApiDeps, job: JobView): Promise<Set<number>> {
  if (job.type !== 'crawl' || job.status !== 'running') return new Set();
  const query = deps.temporal.workflow.getHandle(job.workflow_id).query<number[]>(CRAWL_IN_FLIGHT_QUERY);
  const timeout = new Promise<number[]>((resolve) => setTimeout(() => resolve([]), 2_000).unref());
  return new Set(await Promise.race([query.catch(() => []), timeout]));
}

async function singlePageMap(deps: ApiDeps, job: JobView) {
  return (await deps.jobs.results(job)).map((r, node) => ({
    id: r.id,
    node,
    url: r.url,
    parent_url: r.parent_url,
    depth: r.depth,
    discovered_at: job.created_at,
    error_details: null,
    ...pageOutcome(r),
  }));
}
