// Creating jobs: the job.created event, then the workflow — started, resumed when its start never reached Temporal.
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { FastifyReply } from 'fastify';
import {
  appendJobCreated,
  domainOf,
  mintJobId,
  needsSecrets,
  type WorkflowInput,
  workflowStart,
} from '../shared/job-create.js';
import { type JobView, reduceJob } from '../shared/reducers/job.js';
import { type JobSpec, readJobSpec, UnreadableSpecError } from '../shared/schemas/job-spec.js';
import { isDuplicateKey } from '../shared/store/mongo.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';
import { admitJob } from './tier-limits.js';

export interface NewJob {
  tenantId: string;
  idempotencyKey: string | null;
  /** What the job runs: stored in job.created, and with the job's ids its workflow's input. */
  spec: JobSpec;
  /** The job this one retries. */
  retryOf?: string;
  /** The monitor whose run this job is. */
  monitorId?: string;
  /** Runs after job.created is recorded and before the workflow starts (e.g. to store a job secret). */
  beforeStart?: (jobId: string) => Promise<void>;
  /** The tenant's tier limit on jobs at once, for a job the caller starts (none: not checked). */
  maxConcurrentJobs?: number | null;
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
  const type = job.spec.kind;
  const start = workflowStart(job.spec, { jobId, tenantId: job.tenantId });
  if (job.idempotencyKey) {
    // A job in the log but not yet in the read models (its request stopped between the two) counts too.
    const existing = (await deps.jobs.get(job.tenantId, jobId)) ?? (await deps.events.project(jobId));
    if (existing) {
      // A key names one request: the same key on another kind of job is the caller's mistake, not a replay.
      if (existing.type !== type) {
        throw new ProblemError({
          slug: 'conflict',
          detail:
            `The Idempotency-Key was used for a ${existing.type} job (${existing.id}); use a new key for ` +
            `this ${type} request.`,
          errors: [{ location: 'header.idempotency-key', message: `already used for job ${existing.id}` }],
          extra: { job_id: existing.id },
        });
      }
      // A job whose start never reached Temporal (the API stopped, or a 503) is started by its retry.
      if (existing.status === 'pending')
        await resumeJob(deps, existing, { beforeStart: job.beforeStart, reply });
      return { job: (await deps.jobs.get(job.tenantId, jobId)) ?? existing, created: false };
    }
  }
  await admitJob(deps, job.tenantId, job.maxConcurrentJobs ?? null);
  // Marked before it is recorded: a job recorded without a started workflow is always found by the sweeper.
  const starts = pendingStarts(deps);
  const { created, projected } = await appendJobCreated(
    deps,
    { ...job, jobId, workflowId: start.workflowId },
    () => starts.add(jobId, job.tenantId),
  );
  try {
    await job.beforeStart?.(jobId);
    // `prepared` matters only to a job with secrets: one without starts from its stored spec alone.
    if (needsSecrets(job.spec)) await starts.prepared(jobId);
  } catch (err) {
    await projected.catch(() => undefined); // the job shows as pending, for a retry or the sweeper
    throw err;
  }
  // The workflow starts while job.created is projected; the job is answered only once it shows.
  const launched = { ...start, jobId, tenantId: job.tenantId, url: job.spec.url, type };
  await Promise.all([launch(deps, launched, reply), projected]);
  // The job as its first event makes it (what the append projected), without reading it back.
  const view = reduceJob([created]);
  if (!view) throw new Error(`job ${jobId} has no view after creation`);
  return { job: view, created: true };
}

type Launch = ReturnType<typeof workflowStart> & {
  jobId: string;
  tenantId: string;
  url: string;
  type: JobSpec['kind'];
};

/**
 * Starts the job's workflow. The id is the job's, and a closed workflow of that id is not started again, so
 * however many requests and sweepers try, one workflow runs. Temporal out of reach is a 503 with Retry-After
 * that leaves the job recorded and marked: a retry with the same key, or the sweeper, starts it.
 */
async function launch(deps: ApiDeps, job: Launch, reply?: FastifyReply): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      // Typed by the spec: the workflow type is the spec's kind's, its one argument that spec with the ids.
      deps.temporal.workflow.start<(input: WorkflowInput) => Promise<unknown>>(job.workflowType, {
        workflowId: job.workflowId,
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [job.input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        ...(job.workflowTaskTimeout ? { workflowTaskTimeout: job.workflowTaskTimeout } : {}),
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
 * Starts a pending job's workflow from its stored spec when it has none: for a retry with the job's
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
  const spec = await storedSpec(deps, job).catch((err) => {
    if (err instanceof UnreadableSpecError) return null;
    throw err;
  });
  const marker = await starts.get(job.id);
  let reason =
    spec === undefined
      ? 'its request was not stored with it'
      : spec === null
        ? 'its stored request could not be read'
        : null;
  if (spec && !marker?.prepared) {
    if (opts.beforeStart) {
      await opts.beforeStart(job.id);
      await starts.prepared(job.id);
    } else if (needsSecrets(spec)) {
      reason =
        'the API stopped before its model key or webhook secrets were stored (they are never kept in the job)';
    }
  }
  if (!spec || reason) {
    await failUnstarted(deps, job, `the job could not be started: ${reason}; submit the request again`);
    await starts.clear(job.id);
    return 'failed';
  }
  const start = workflowStart(spec, { jobId: job.id, tenantId: job.tenant_id });
  const launched = { ...start, workflowId: job.workflow_id, jobId: job.id, tenantId: job.tenant_id };
  await launch(deps, { ...launched, url: job.url, type: job.type }, opts.reply);
  return 'started';
}

/**
 * A job's spec as its job.created event stored it (no ids, no secrets), read with the JobSpec schema;
 * undefined when none was stored. A job stored before specs had a kind takes its job's type.
 */
export async function storedSpec(
  deps: Pick<ApiDeps, 'events'>,
  job: Pick<JobView, 'id' | 'type'>,
): Promise<JobSpec | undefined> {
  const created = await deps.events.get(job.id, 0);
  const request = created?.type === 'job.created' ? created.data.request : undefined;
  return request ? readJobSpec(request, job.type) : undefined;
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
