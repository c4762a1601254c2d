// Creating jobs (job.created event, then the workflow) and waiting for them with a deadline.
import { createHash, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { FastifyReply } from 'fastify';
import { CATEGORY_HTTP_STATUS, retryAfterOf } from '../shared/errors.js';
import type { JobEvent } from '../shared/events.js';
import { isFinal, type JobView, reduceJob } from '../shared/reducers/job.js';
import type { ResultView } from '../shared/reducers/results.js';
import { isDuplicateKey } from '../shared/store/mongo.js';
import {
  type JobType,
  SEARCH_ATTRIBUTE_KEYS,
  WORKFLOW_TYPES,
  workflowIdForJob,
} from '../shared/temporal-names.js';
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

/**
 * Jobs recorded whose workflow start has not been seen to reach Temporal, keyed by job id (FerretDB pushes
 * down only `_id` equality; the sweeper reads the whole collection, which holds only jobs being started).
 * `prepared`: beforeStart ran, so the job's secrets are stored and the stored request is enough to start it.
 */
interface PendingStartDoc {
  _id: string;
  tenant_id: string;
  since: Date;
  prepared: boolean;
}
const PENDING_STARTS = 'job_starts';
/** A healthy Temporal answers a start in milliseconds; the client's own retries would hold a request ~20 s. */
const START_DEADLINE_MS = 5_000;
/** What a 503 asks the caller to wait before retrying with the same Idempotency-Key. */
export const START_RETRY_AFTER_S = 10;

export const pendingStarts = (deps: Pick<ApiDeps, 'db'>) => {
  const col = deps.db.collection<PendingStartDoc>(PENDING_STARTS);
  return {
    async add(jobId: string, tenantId: string) {
      await col
        .insertOne({ _id: jobId, tenant_id: tenantId, since: new Date(), prepared: false })
        .catch((err) => {
          if (!isDuplicateKey(err)) throw err;
        });
    },
    get: (jobId: string) => col.findOne({ _id: jobId }),
    prepared: (jobId: string) => col.updateOne({ _id: jobId }, { $set: { prepared: true } }),
    clear: (jobId: string) => col.deleteOne({ _id: jobId }),
    batch: (limit: number) => col.find({}).limit(limit).toArray(),
  };
};

export async function startJob(
  deps: ApiDeps,
  job: NewJob,
  reply?: FastifyReply,
): Promise<{ job: JobView; created: boolean }> {
  const jobId = mintJobId(job.tenantId, job.idempotencyKey);
  const workflowId = workflowIdForJob(job.type, jobId);
  if (job.idempotencyKey) {
    const existing = await deps.jobs.get(job.tenantId, jobId);
    if (existing) {
      // A job whose start never reached Temporal (the API stopped, or a 503) is started by its retry.
      if (existing.status === 'pending')
        await resumeJob(deps, existing, { beforeStart: job.beforeStart, reply });
      return { job: (await deps.jobs.get(job.tenantId, jobId)) ?? existing, created: false };
    }
  }
  // Marked before it is recorded: a job recorded without a started workflow is always found by the sweeper.
  const starts = pendingStarts(deps);
  const [, tenantSeq] = await Promise.all([
    starts.add(jobId, job.tenantId),
    deps.jobs.nextTenantSeq(job.tenantId, jobId),
  ]);
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
  await job.beforeStart?.(jobId);
  // `prepared` matters only to a job with secrets: one without starts from its stored request alone.
  if (needsSecrets(created.data.request ?? {})) await starts.prepared(jobId);
  await launch(deps, { ...job, jobId, workflowId, input: job.input(jobId) }, reply);
  // The job as its first event makes it (what the append projected), without reading it back.
  const view = reduceJob([created]);
  if (!view) throw new Error(`job ${jobId} has no view after creation`);
  return { job: view, created: true };
}

interface Launch {
  jobId: string;
  workflowId: string;
  workflowType: string;
  tenantId: string;
  type: JobType;
  url: string;
  input: unknown;
}

/**
 * Starts the job's workflow. The id is the job's, and a closed workflow of that id is not started again, so
 * however many requests and sweepers try, one workflow runs. Temporal out of reach is a 503 with Retry-After
 * that leaves the job recorded and marked: a retry with the same key, or the sweeper, starts it.
 */
async function launch(deps: ApiDeps, job: Launch, reply?: FastifyReply): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start(job.workflowType, {
        workflowId: job.workflowId,
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [job.input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        memo: { url: job.url, tenant: job.tenantId },
        typedSearchAttributes: new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTE_KEYS.tenant, value: job.tenantId },
          { key: SEARCH_ATTRIBUTE_KEYS.jobType, value: job.type },
          { key: SEARCH_ATTRIBUTE_KEYS.domain, value: domainOf(job.url) },
          { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'pending' },
        ]),
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw unavailable(job.jobId, err, reply);
  }
  await pendingStarts(deps).clear(job.jobId);
}

function unavailable(jobId: string, err: unknown, reply?: FastifyReply): ProblemError {
  reply?.header('retry-after', String(START_RETRY_AFTER_S));
  return new ProblemError({
    slug: 'service-unavailable',
    detail:
      `The job ${jobId} is recorded but could not be started (${(err as Error).message}). It starts by ` +
      'itself once the workflow service is reachable; a retry with the same Idempotency-Key answers it.',
    extra: { job_id: jobId },
  });
}

/** Whether the job's workflow exists (running or closed); Temporal out of reach is a 503. */
async function workflowExists(deps: ApiDeps, jobId: string, workflowId: string, reply?: FastifyReply) {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.getHandle(workflowId).describe(),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw unavailable(jobId, err, reply);
  }
}

/**
 * Starts a pending job's workflow from its stored request when it has none: for a retry with the job's
 * Idempotency-Key (whose beforeStart stores the secrets again when the first request stopped before) and
 * for the sweeper. A job whose secrets were never stored cannot start without its request: it fails, saying so.
 */
export async function resumeJob(
  deps: ApiDeps,
  job: JobView,
  opts: { beforeStart?: (jobId: string) => Promise<void>; reply?: FastifyReply } = {},
): Promise<'running' | 'started' | 'failed'> {
  const starts = pendingStarts(deps);
  if (await workflowExists(deps, job.id, job.workflow_id, opts.reply)) {
    await starts.clear(job.id);
    return 'running';
  }
  const created = await deps.events.get(job.id, 0);
  const request = created?.type === 'job.created' ? created.data.request : undefined;
  const marker = await starts.get(job.id);
  let reason = request ? null : 'its request was not stored with it';
  if (request && !marker?.prepared) {
    if (opts.beforeStart) {
      await opts.beforeStart(job.id);
      await starts.prepared(job.id);
    } else if (needsSecrets(request)) {
      reason =
        'the API stopped before its model key or webhook secrets were stored (they are never kept in the job)';
    }
  }
  if (!request || reason) {
    await failUnstarted(deps, job, `the job could not be started: ${reason}; submit the request again`);
    await starts.clear(job.id);
    return 'failed';
  }
  const input = { ...request, jobId: job.id, tenantId: job.tenant_id, firstSeq: 1 };
  const launchSpec = { jobId: job.id, workflowId: job.workflow_id, workflowType: WORKFLOW_TYPES[job.type] };
  await launch(
    deps,
    { ...launchSpec, tenantId: job.tenant_id, type: job.type, url: job.url, input },
    opts.reply,
  );
  return 'started';
}

/** What beforeStart stores apart from the request: a one-job model key, webhook destinations. */
function needsSecrets(request: Record<string, unknown>): boolean {
  const llm = request.llm as { hasKey?: unknown } | undefined;
  return Boolean(llm?.hasKey) || request.webhooks !== undefined;
}

async function failUnstarted(deps: ApiDeps, job: JobView, message: string) {
  await deps.events.append([
    {
      type: 'job.failed',
      job_id: job.id,
      tenant_id: job.tenant_id,
      seq: 1,
      event_id: randomUUID(),
      at: new Date().toISOString(),
      data: { error_category: 'unknown', error_message: message, duration_ms: 0 },
    },
  ]);
}

/**
 * Waits on the job's workflow until it finishes or the deadline passes, then answers from the projection.
 * Abandoning the wait (deadline, client gone) never touches the workflow.
 */
export async function awaitJob(deps: ApiDeps, job: JobView, timeoutMs: number): Promise<JobView> {
  await awaitWorkflow(deps, job, timeoutMs);
  return (await deps.jobs.get(job.tenant_id, job.id)) ?? job;
}

/**
 * Waits on the job's workflow until it finishes or the deadline passes: `completed` when it returned (its
 * events are projected by then: they are recorded before the workflow ends), `other` when it failed, was
 * cancelled or is still running, or the job had ended already (its projection says which).
 */
async function awaitWorkflow(deps: ApiDeps, job: JobView, timeoutMs: number): Promise<'completed' | 'other'> {
  if (isFinal(job.status)) return 'other';
  const handle = deps.temporal.workflow.getHandle(job.workflow_id);
  return deps.temporal
    .withDeadline(Date.now() + timeoutMs, () => handle.result())
    .then(
      () => 'completed' as const,
      () => 'other' as const,
    );
}

/** The completed page of a one-page job whose workflow returned, from its results alone (one read). */
async function completedPage(deps: ApiDeps, job: JobView): Promise<ResultView | undefined> {
  return (await deps.jobs.results(job)).find((r) => r.status === 'completed');
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
  // A workflow that returned answers from its page's result: one projection read, not the job's as well.
  if ((await awaitWorkflow(deps, job, timeoutMs)) === 'completed') {
    const page = await completedPage(deps, job);
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

/** The workflow input as the job's stored request: ids dropped (they belong to the job), no secrets in it. */
function requestOf(input: unknown): Record<string, unknown> {
  const { jobId, tenantId, firstSeq, state, ...request } = input as Record<string, unknown>;
  return request;
}
