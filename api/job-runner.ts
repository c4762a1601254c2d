// Creating jobs (job.created event, then the workflow) and waiting for them with a deadline.
import { createHash, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { FastifyReply } from 'fastify';
import { CATEGORY_HTTP_STATUS } from '../shared/errors.js';
import type { JobEvent } from '../shared/events.js';
import { isFinal, type JobView } from '../shared/reducers/job.js';
import type { ResultView } from '../shared/reducers/results.js';
import { type JobType, SEARCH_ATTRIBUTE_KEYS, workflowIdForJob } from '../shared/temporal-names.js';
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';

export interface NewJob {
  tenantId: string;
  type: JobType;
  url: string;
  captureDebug: boolean;
  idempotencyKey: string | null;
  workflowType: string;
  /** The workflow's single argument, given the minted job id. */
  input: (jobId: string) => unknown;
  /** Crawls: the max_depth option, kept with the job for the crawl map. */
  maxDepth?: number;
  /** The job this one retries. */
  retryOf?: string;
  /** Runs after job.created is recorded and before the workflow starts (e.g. to store a job secret). */
  beforeStart?: (jobId: string) => Promise<void>;
}

/**
 * With an Idempotency-Key the job id is derived from (tenant, key): two requests with the same key — even
 * concurrent ones — name the same job, the second job.created append is a no-op, and Temporal refuses a
 * second workflow with the same id. So a retried POST never starts a second job.
 */
function mintJobId(tenantId: string, idempotencyKey: string | null): string {
  if (!idempotencyKey) return `job_${randomUUID().replaceAll('-', '')}`;
  const digest = createHash('sha256').update(`${tenantId}\n${idempotencyKey}`).digest('hex');
  return `job_${digest.slice(0, 32)}`;
}

function domainOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

export async function startJob(deps: ApiDeps, job: NewJob): Promise<{ job: JobView; created: boolean }> {
  const jobId = mintJobId(job.tenantId, job.idempotencyKey);
  const workflowId = workflowIdForJob(job.type, jobId);
  if (job.idempotencyKey) {
    const existing = await deps.jobs.get(job.tenantId, jobId);
    if (existing) return { job: existing, created: false };
  }
  const tenantSeq = await deps.jobs.nextTenantSeq(job.tenantId, jobId);
  const created: JobEvent = {
    type: 'job.created',
    job_id: jobId,
    tenant_id: job.tenantId,
    seq: 0,
    event_id: randomUUID(),
    at: new Date().toISOString(),
    data: {
      job_type: job.type,
      url: job.url,
      capture_debug: job.captureDebug,
      workflow_id: workflowId,
      idempotency_key: job.idempotencyKey,
      tenant_seq: tenantSeq,
      ...(job.maxDepth === undefined ? {} : { max_depth: job.maxDepth }),
      ...(job.retryOf ? { retry_of: job.retryOf } : {}),
      request: requestOf(job.input(jobId)),
    },
  };
  await deps.events.append([created]);
  try {
    await job.beforeStart?.(jobId);
    await deps.temporal.workflow.start(job.workflowType, {
      workflowId,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [job.input(jobId)],
      memo: { url: job.url, tenant: job.tenantId },
      typedSearchAttributes: new TypedSearchAttributes([
        { key: SEARCH_ATTRIBUTE_KEYS.tenant, value: job.tenantId },
        { key: SEARCH_ATTRIBUTE_KEYS.jobType, value: job.type },
        { key: SEARCH_ATTRIBUTE_KEYS.domain, value: domainOf(job.url) },
        { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'pending' },
      ]),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
      // The job exists in the log; record why it never ran so it does not stay pending forever.
      await deps.events.append([
        {
          type: 'job.failed',
          job_id: jobId,
          tenant_id: job.tenantId,
          seq: 1,
          event_id: randomUUID(),
          at: new Date().toISOString(),
          data: { error_category: 'unknown', error_message: 'the job could not be started', duration_ms: 0 },
        },
      ]);
      throw new ProblemError({
        slug: 'service-unavailable',
        detail: `The job ${jobId} could not be started: ${(err as Error).message}`,
        extra: { job_id: jobId },
      });
    }
  }
  const view = (await deps.jobs.get(job.tenantId, jobId)) ?? (await deps.events.project(jobId));
  if (!view) throw new Error(`job ${jobId} has no projection after creation`);
  return { job: view, created: true };
}

/**
 * Waits on the job's workflow until it finishes or the deadline passes, then answers from the projection.
 * Abandoning the wait (deadline, client gone) never touches the workflow.
 */
export async function awaitJob(deps: ApiDeps, job: JobView, timeoutMs: number): Promise<JobView> {
  if (!isFinal(job.status)) {
    const handle = deps.temporal.workflow.getHandle(job.workflow_id);
    await deps.temporal.withDeadline(Date.now() + timeoutMs, () => handle.result()).catch(() => undefined); // failure or deadline: the projection says which
  }
  return (await deps.jobs.get(job.tenant_id, job.id)) ?? job;
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
  const done = await awaitJob(deps, job, deps.config.EXTRACT_WAIT_SECONDS * 1000);
  if (done.status === 'completed') {
    const [page] = (await deps.jobs.results(done)).filter((r) => r.status === 'completed');
    if (page) return reply.code(200).send(view(done, page));
  }
  if (isFinal(done.status)) {
    const category = done.error_category ?? 'unknown';
    const status = CATEGORY_HTTP_STATUS[category];
    throw new ProblemError({
      slug: status === 422 ? 'validation-error' : status === 429 ? 'rate-limited' : 'job-failed',
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

/** The workflow input as the job's stored request: ids dropped (they belong to the job), no secrets in it. */
function requestOf(input: unknown): Record<string, unknown> {
  const { jobId, tenantId, firstSeq, state, ...request } = input as Record<string, unknown>;
  return request;
}
