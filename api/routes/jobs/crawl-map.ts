// GET /jobs/{id}/crawl-map: every URL a job discovered, with its outcome (an extract's map is its one page).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobView } from '../../../shared/reducers/job.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { CrawlMapSchema } from '../../../shared/schemas/crawl.js';
import { standardErrors } from '../../../shared/schemas/problem.js';
import { RefyneCrawlMapEntrySchema } from '../../../shared/schemas/refyne/jobs.js';
import { pageOutcome } from '../../../shared/store/jobs.js';
import type { CrawlMapEntry } from '../../../shared/store/read-models.js';
import { CRAWL_IN_FLIGHT_QUERY } from '../../../shared/temporal-names.js';
import type { ApiDeps } from '../../deps.js';
import { notFound } from '../../problem.js';
import { streamObject } from '../../streamed-body.js';

/** Each entry is checked (and trimmed) as the response schema would check the whole map. */
const ENTRY = CrawlMapSchema.shape.entries.element;

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
            'recorded per page, so a page of endless links cannot flood the map. Extract jobs have a one-page map. ' +
            'The entries are streamed as they are read (the counts come after them in the object), so a crawl ' +
            'of any size is answered without the service holding it whole. Durations and token counts are integers, ' +
            '0 for a page that was not fetched or extracted (skipped, pending). API version refyne: entries carry ' +
            "the product's CrawlMapEntry fields only (no clean_duration_ms or data_source).",
          tags: ['jobs'],
          params: IdParamsSchema,
          response: { 200: CrawlMapSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        const crawling = await pagesInFlight(deps, job);
        // API version refyne: the product's CrawlMapEntry fields only.
        const entrySchema = request.apiVersion === 'refyne' ? RefyneCrawlMapEntrySchema : ENTRY;
        const counts = { total: 0, completed: 0, failed: 0, byCategory: {} as Record<string, number> };
        const toJson = (entry: CrawlMapEntry) => {
          if (entry.status === 'pending' && crawling.has(entry.node)) entry.status = 'crawling';
          counts.total++;
          if (entry.status === 'completed') counts.completed++;
          if (entry.status === 'failed') {
            counts.failed++;
            const category = entry.error_category;
            if (category) counts.byCategory[category] = (counts.byCategory[category] ?? 0) + 1;
          }
          const { node: _node, ...e } = entry;
          return entrySchema.parse({
            ...e,
            extract_duration_ms: e.extract_duration_ms ?? 0,
            fetch_duration_ms: e.fetch_duration_ms ?? 0,
            clean_duration_ms: e.clean_duration_ms ?? 0,
            data_source: e.data_source ?? null,
          });
        };
        const batches = job.type === 'crawl' ? deps.jobs.crawlMapBatches(job) : singlePageMap(deps, job);
        const head = { job_id: job.id, seed_url: job.url, max_depth: job.max_depth ?? 0 };
        // The summary follows the entries: it counts them as they are sent.
        const tail = () => ({
          total: counts.total,
          completed: counts.completed,
          failed: counts.failed,
          error_summary: {
            total: counts.failed,
            has_rate_limit: 'rate_limit' in counts.byCategory,
            by_category: counts.byCategory,
          },
        });
        const body = streamObject(head, 'entries', batches, toJson, tail);
        // Fastify pipes a stream as it is (no serializer); the response schema only documents it.
        return reply.type('application/json; charset=utf-8').send(body as never);
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

/** An extract's (or analyze's, map's) one page as a crawl-map entry. */
async function* singlePageMap(deps: ApiDeps, job: JobView): AsyncGenerator<CrawlMapEntry[]> {
  yield (await deps.jobs.results(job)).map((r, node) => ({
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
