// POST /crawl (a durable crawl job, optionally waited on), cancelling jobs, and the crawl map.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { budgetInput } from '../../shared/budget.js';
import { defaultChainFor, keepInChain } from '../../shared/cleaners.js';
import { isFinal, type JobView } from '../../shared/reducers/job.js';
import { actionsInput } from '../../shared/schemas/actions.js';
import { IdempotencyHeadersSchema, IdParamsSchema } from '../../shared/schemas/common.js';
import {
  CrawlMapSchema,
  type CrawlQuery,
  CrawlQuerySchema,
  type CrawlRequest,
  CrawlRequestSchema,
  CrawlResponseSchema,
  parseDuration,
} from '../../shared/schemas/crawl.js';
import { maxAgeInput } from '../../shared/schemas/extract.js';
import { JobSchema } from '../../shared/schemas/job.js';
import { jobStartErrors, ProblemSchema, standardErrors } from '../../shared/schemas/problem.js';
import { pageOutcome } from '../../shared/store/jobs.js';
import { CRAWL_IN_FLIGHT_QUERY, WORKFLOW_TYPES } from '../../shared/temporal-names.js';
import type { CrawlWorkflowInput } from '../../workflows/crawl.js';
import type { ApiDeps } from '../deps.js';
import { awaitJob } from '../job-answer.js';
import { startJob } from '../job-runner.js';
import { notFound, ProblemError } from '../problem.js';
import { jobResource } from '../views.js';
import { prepareJobRequest } from './extract.js';
import { refuseSecrets } from './site-session.js';

async function crawlResponse(deps: ApiDeps, job: JobView, withData: boolean) {
  const data = withData
    ? (await deps.jobs.results(job)).map((r) => ({
        id: r.id,
        url: r.url,
        status: r.status,
        data: r.data,
        ...(r.error_category ? { error_category: r.error_category, error_message: r.error_message } : {}),
        ...(r.from_cache ? { from_cache: true, fetched_at: r.fetched_at } : {}),
      }))
    : undefined;
  return {
    job_id: job.id,
    status: job.status,
    status_url: `/api/v1/jobs/${job.id}`,
    queue_position: await deps.jobs.queuePosition(job),
    page_count: job.page_count,
    duration_ms: job.duration_ms,
    cost_usd: job.cost_usd,
    token_usage: { input: job.token_usage_input, output: job.token_usage_output },
    ...(data ? { data } : {}),
    error_message: job.error_message,
  };
}

/** A crawl request's workflow input for a job (monitors store it, without the ids, to create each run's job). */
export function crawlInput(
  body: CrawlRequest,
  prepared: Awaited<ReturnType<typeof prepareJobRequest>>,
  tenantId: string,
  siteId?: string,
) {
  const { delay, ...rules } = body.options;
  return (jobId: string): CrawlWorkflowInput => ({
    jobId,
    tenantId,
    url: body.url,
    ...actionsInput(body),
    // The links the crawl follows stay visible to the model whatever the cleaners remove.
    cleanerChain: keepInChain<CrawlWorkflowInput['cleanerChain'][number]>(
      body.cleaner_chain ?? defaultChainFor(prepared.schema),
      [rules.follow_selector, rules.next_selector].filter((v): v is string => Boolean(v)),
    ),
    schema: prepared.schema,
    captureDebug: body.capture_debug,
    structuredData: body.structured_data,
    learnExtractors: body.learn_extractors,
    ...(siteId ? { siteId } : {}),
    llm: prepared.llm,
    options: { ...rules, delay_ms: delay ? (parseDuration(delay) ?? 0) : 0 },
    firstSeq: 1,
    ...prepared.webhooks,
    ...budgetInput(body),
    ...maxAgeInput(body),
  });
}

/** Starts a crawl job from a validated request and answers as POST /crawl does (202, or waited 200/202). */
export async function runCrawl(
  deps: ApiDeps,
  reply: FastifyReply,
  req: {
    tenantId: string;
    idempotencyKey: string | null;
    query: CrawlQuery;
    body: CrawlRequest;
    /** A stored site's crawl: its learned extractors are the site's, kept across its jobs. */
    siteId?: string;
  },
) {
  const { body, tenantId } = req;
  if (!req.siteId) refuseSecrets(body.actions);
  const prepared = await prepareJobRequest(deps, tenantId, body);
  const { job } = await startJob(
    deps,
    {
      tenantId,
      type: 'crawl',
      url: body.url,
      captureDebug: body.capture_debug,
      idempotencyKey: req.idempotencyKey,
      workflowType: WORKFLOW_TYPES.crawl,
      maxDepth: body.options.max_depth,
      beforeStart: prepared.beforeStart,
      input: crawlInput(body, prepared, tenantId, req.siteId),
    },
    reply,
  );
  if (!req.query.wait) return reply.code(202).send(await crawlResponse(deps, job, false));
  const done = await awaitJob(deps, job, req.query.timeout * 1000);
  const finished = isFinal(done.status);
  return reply.code(finished ? 200 : 202).send(await crawlResponse(deps, done, finished));
}

export const crawlRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/crawl',
      {
        schema: {
          summary: 'Crawl a site from a seed URL and extract from every page',
          description:
            'Starts a durable crawl job. Without wait: 202 at once with job_id, status, status_url and ' +
            'queue_position. With wait=true: 200 with data (the page results) if the job ends within timeout ' +
            'seconds (10..120, default 120), else 202 and the job goes on. A client that disconnects while ' +
            'waiting does not affect the job. Links are followed by follow_selector / follow_pattern on the same ' +
            'site, next_selector paginates at the same depth; robots.txt is obeyed by default; URLs are normalised ' +
            'and never processed twice. Send an Idempotency-Key header to make retries safe.',
          tags: ['crawl'],
          querystring: CrawlQuerySchema,
          headers: IdempotencyHeadersSchema,
          body: CrawlRequestSchema,
          response: { 200: CrawlResponseSchema, 202: CrawlResponseSchema, ...jobStartErrors },
        },
      },
      async (request, reply) =>
        runCrawl(deps, reply, {
          tenantId: request.tenant._id,
          idempotencyKey: request.headers['idempotency-key'] ?? null,
          query: request.query,
          body: request.body,
        }),
    );

    app.post(
      '/jobs/:id/cancel',
      {
        schema: {
          summary: 'Cancel a pending or running job',
          description:
            "Cancels the job's workflow: pages in flight end cleanly (recorded as skipped) and the job ends " +
            'cancelled. Answers the job; a job that already ended is a 409 problem.',
          tags: ['jobs'],
          params: IdParamsSchema,
          response: { 200: JobSchema, 409: ProblemSchema, ...standardErrors },
        },
      },
      async (request) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        if (isFinal(job.status)) {
          throw new ProblemError({
            slug: 'conflict',
            detail: `the job already ended (${job.status})`,
            extra: { job_id: job.id },
          });
        }
        await deps.temporal.workflow.getHandle(job.workflow_id).cancel();
        const after = await awaitJob(deps, job, 10_000);
        return jobResource(deps, after);
      },
    );

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
