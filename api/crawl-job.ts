// Starting a crawl job and answering as POST /crawl does: 202 with the job's link, or (wait=true) 200 with
// the pages' data once it ends within the timeout. POST /crawl and a stored site's crawl both start here.
import type { FastifyReply } from 'fastify';
import { isFinal, type JobView } from '../shared/reducers/job.js';
import type { CrawlQuery, CrawlRequest } from '../shared/schemas/crawl.js';
import { WORKFLOW_TYPES } from '../shared/temporal-names.js';
import type { ApiDeps } from './deps.js';
import { awaitJob } from './job-answer.js';
import { crawlInput, prepareJobRequest, refuseSecrets } from './job-requests.js';
import { startJob } from './job-runner.js';

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
