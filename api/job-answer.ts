// Waiting for a job with a deadline, and the answers of a waited one-page job (extract, analyze, map) and of a
// crawl (POST /crawl, a site's crawl).
import type { FastifyReply } from 'fastify';
import { CATEGORY_HTTP_STATUS, retryAfterOf } from '../shared/errors.js';
import { isFinal, type JobView } from '../shared/reducers/job.js';
import type { ResultView } from '../shared/reducers/results.js';
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';
import { streamObject } from './streamed-body.js';

/**
 * Waits on the job's workflow until it finishes or the deadline passes, then answers from the projection.
 * Abandoning the wait (deadline, client gone) never touches the workflow.
 */
export async function awaitJob(deps: ApiDeps, job: JobView, timeoutMs: number): Promise<JobView> {
  await awaitWorkflow(deps, job, timeoutMs);
  return (await deps.jobs.get(job.tenant_id, job.id)) ?? job;
}

/**
 * Waits on the job's workflow until it finishes or the deadline passes: what it returned (its events are
 * projected by then: they are recorded before the workflow ends), or null when it failed, was cancelled or is
 * still running, or the job had ended already (its projection says which).
 */
async function awaitWorkflow(
  deps: ApiDeps,
  job: JobView,
  timeoutMs: number,
): Promise<{ returned: unknown } | null> {
  if (isFinal(job.status)) return null;
  const handle = deps.temporal.workflow.getHandle(job.workflow_id);
  return deps.temporal
    .withDeadline(Date.now() + timeoutMs, () => handle.result())
    .then(
      (returned: unknown) => ({ returned }),
      () => null,
    );
}

/**
 * The completed page of a one-page job whose workflow returned: the one its result carries (an extract's, when
 * small enough: workflows/extract-page.ts), else from its results alone (one read).
 */
async function completedPage(
  deps: ApiDeps,
  job: JobView,
  returned?: unknown,
): Promise<ResultView | undefined> {
  const carried = carriedAnswer(returned);
  if (carried) return carried;
  return (await deps.jobs.results(job)).find((r) => r.status === 'completed');
}

/** The completed page a workflow's result carries in `answer`, if any. */
function carriedAnswer(returned: unknown): ResultView | undefined {
  if (typeof returned !== 'object' || returned === null || !('answer' in returned)) return undefined;
  const { answer } = returned;
  if (typeof answer !== 'object' || answer === null || !('status' in answer)) return undefined;
  return answer.status === 'completed' ? (answer as ResultView) : undefined;
}

/**
 * The answer of a waited one-page job (extract, analyze): 200 with the page's result as `view` shapes it;
 * a job that ended without one is a problem naming the job (status by its error category); a job still
 * running at the deadline is 202 with its link.
 */
export async function answerPageJob<T>(
  deps: ApiDeps,
  job: JobView,
  reply: FastifyReply,
  view: (job: JobView, page: ResultView) => T,
) {
  const timeoutMs = deps.config.EXTRACT_WAIT_SECONDS * 1000;
  // A workflow that returned answers from its page's result: carried in what it returned, or one projection
  // read, not the job's as well.
  const finished = await awaitWorkflow(deps, job, timeoutMs);
  if (finished) {
    const page = await completedPage(deps, job, finished.returned);
    if (page) return reply.code(200).send(view(job, page));
  }
  const done = (await deps.jobs.get(job.tenant_id, job.id)) ?? job;
  if (done.status === 'completed') {
    const page = await completedPage(deps, done);
    if (page) return reply.code(200).send(view(done, page));
  }
  if (isFinal(done.status)) {
    const category = done.error_category ?? 'unknown';
    const status = CATEGORY_HTTP_STATUS[category];
    // A provider's rate limit or quota is the job's failure, not our request-rate limit (`rate-limited`).
    const retryAfter = category === 'rate_limit' ? retryAfterOf(done.error_message) : null;
    if (retryAfter !== null) reply.header('retry-after', String(retryAfter));
    throw new ProblemError({
      slug:
        status === 422
          ? 'validation-error'
          : category === 'rate_limit'
            ? 'provider-rate-limited'
            : 'job-failed',
      status,
      title: `Job ${done.status}: ${category}`,
      detail: done.error_message ?? `the job ${done.status}`,
      extra: { job_id: done.id, error_category: category },
    });
  }
  return reply.code(202).send({
    job_id: done.id,
    status: done.status,
    status_url: `/api/v1/jobs/${done.id}`,
    queue_position: await deps.jobs.queuePosition(done),
  });
}

/** A crawl's page result as its answer's `data` lists it. */
function crawlPage(r: ResultView) {
  return {
    id: r.id,
    url: r.url,
    status: r.status,
    data: r.data,
    ...(r.error_category ? { error_category: r.error_category, error_message: r.error_message } : {}),
    ...(r.from_cache ? { from_cache: true, fetched_at: r.fetched_at } : {}),
  };
}

/** A crawl's answer without its pages: the job's state. */
export async function crawlResponse(deps: ApiDeps, job: JobView) {
  return {
    job_id: job.id,
    status: job.status,
    status_url: `/api/v1/jobs/${job.id}`,
    queue_position: await deps.jobs.queuePosition(job),
    page_count: job.page_count,
    duration_ms: job.duration_ms,
    cost_usd: job.cost_usd,
    token_usage: { input: job.token_usage_input, output: job.token_usage_output },
    error_message: job.error_message,
  };
}

/**
 * A finished crawl's answer with its pages' results in `data`. Streamed from batched reads of the results, so
 * a crawl of 10,000 pages is never held whole; `whole` builds it as one object instead, for answers reshaped
 * after the route (API version refyne merges the pages' data, which needs them all anyway).
 */
export async function crawlResponseWithData(deps: ApiDeps, job: JobView, whole: boolean) {
  // `data` goes before `error_message`, as the answer without pages has it last.
  const { error_message, ...head } = await crawlResponse(deps, job);
  if (whole) return { ...head, data: (await deps.jobs.results(job)).map(crawlPage), error_message };
  return streamObject(head, 'data', deps.jobs.resultBatches(job), crawlPage, () => ({ error_message }));
}
