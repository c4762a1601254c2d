// The job service: every route that starts a job maps its request to a JobSpec and comes here, which starts
// the job (job-runner.ts: job.created, then the workflow the spec's kind names), waits for it when the route
// does and answers (job-answer.ts). Monitors' runs create their jobs in the worker the same way
// (shared/job-create.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isFinal, type JobView } from '../shared/reducers/job.js';
import type { ResultView } from '../shared/reducers/results.js';
import type { CrawlQuery, CrawlRequest } from '../shared/schemas/crawl.js';
import type { JobSpec } from '../shared/schemas/job-spec.js';
import type { Tenant } from '../shared/store/tenants.js';
import { appliedLimits } from '../shared/tiers.js';
import type { ApiDeps } from './deps.js';
import { answerPageJob, awaitJob, crawlResponse, crawlResponseWithData } from './job-answer.js';
import { crawlSpec, prepareJobRequest, refuseSecrets } from './job-requests.js';
import { startJob } from './job-runner.js';
import { checkCrawlPages } from './tier-limits.js';
import { jobResource } from './views.js';

/** The spec an earlier job stored, for the routes that start a job over it (retry, re-extract). */
export { storedSpec } from './job-runner.js';

/** A job as a route hands it over: its spec, and what to store before its workflow starts (secrets). */
export interface JobStart {
  spec: JobSpec;
  beforeStart?: (jobId: string) => Promise<void>;
}

/** The tier limits of the request's tenant. */
const limitsOf = (deps: ApiDeps, request: Pick<FastifyRequest, 'tenant'>) =>
  appliedLimits(deps.config, request.tenant);

const keyOf = (request: Pick<FastifyRequest, 'headers'>) => {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' ? key : null;
};

/**
 * A waited one-page job (POST /extract, /analyze, /map): started as the caller's tenant with the request's
 * Idempotency-Key, then answered as answerPageJob does.
 */
export async function runWaitedJob<T>(
  deps: ApiDeps,
  request: Pick<FastifyRequest, 'tenant' | 'headers'>,
  reply: FastifyReply,
  start: JobStart,
  view: (job: JobView, page: ResultView) => T,
) {
  const { max_concurrent_jobs } = limitsOf(deps, request);
  const { job } = await startJob(
    deps,
    {
      ...start,
      tenantId: request.tenant._id,
      idempotencyKey: keyOf(request),
      maxConcurrentJobs: max_concurrent_jobs,
    },
    reply,
  );
  return answerPageJob(deps, job, reply, view);
}

/**
 * A crawl (POST /crawl, a stored site's crawl) from a validated request: prepared, started and answered as
 * POST /crawl does (202, or waited: 200 with the pages' data when it ends within the timeout, else 202).
 */
export async function runCrawl(
  deps: ApiDeps,
  reply: FastifyReply,
  req: {
    tenant: Tenant;
    idempotencyKey: string | null;
    query: CrawlQuery;
    body: CrawlRequest;
    /** A stored site's crawl: its learned extractors are the site's, kept across its jobs. */
    siteId?: string;
  },
) {
  const { body } = req;
  const tenantId = req.tenant._id;
  const limits = limitsOf(deps, req);
  refuseSecrets(body.actions);
  const prepared = await prepareJobRequest(deps, tenantId, body);
  checkCrawlPages(body.options.max_pages, limits.max_pages_per_crawl);
  const spec = crawlSpec(body, prepared, req.siteId, limits.max_pages_per_crawl);
  const { job } = await startJob(
    deps,
    {
      tenantId,
      idempotencyKey: req.idempotencyKey,
      spec,
      beforeStart: prepared.beforeStart,
      maxConcurrentJobs: limits.max_concurrent_jobs,
    },
    reply,
  );
  if (!req.query.wait) return reply.code(202).send(await crawlResponse(deps, job));
  const done = await awaitJob(deps, job, req.query.timeout * 1000);
  if (!isFinal(done.status)) return reply.code(202).send(await crawlResponse(deps, done));
  const whole = reply.request.apiVersion === 'refyne';
  const answer = await crawlResponseWithData(deps, done, whole);
  // A streamed body is sent as it is (no serializer): its JSON type is said here.
  if (!whole) reply.type('application/json; charset=utf-8');
  return reply.code(200).send(answer as never);
}

/** A job over an earlier one (retry, re-extract): started without an Idempotency-Key, answered 202 with it. */
export async function runFollowUpJob(
  deps: ApiDeps,
  reply: FastifyReply,
  tenant: Tenant,
  start: JobStart & { retryOf?: string },
) {
  const { max_concurrent_jobs } = limitsOf(deps, { tenant });
  const { job } = await startJob(
    deps,
    { ...start, tenantId: tenant._id, idempotencyKey: null, maxConcurrentJobs: max_concurrent_jobs },
    reply,
  );
  return reply.code(202).send(await jobResource(deps, job));
}
