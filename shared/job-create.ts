// Recording a new job: its id, its number among the tenant's jobs and its job.created event. Shared by the
// API (which then starts the job's workflow) and the monitor activities (whose workflow runs it as a child),
// so a job is created the same way whoever creates it.
import { createHash, randomUUID } from 'node:crypto';
import type { JobEvent } from './events.js';
import type { JobKind, JobSpec, WorkflowInputOf } from './schemas/job-spec.js';
import type { EventStore } from './store/event-store.js';
import type { JobReader } from './store/jobs.js';
import type { LlmSettingsStore } from './store/llm-settings.js';
import type { WebhookStore } from './store/webhooks.js';
import { WORKFLOW_TASK_TIMEOUTS, WORKFLOW_TYPES, workflowIdForJob } from './temporal-names.js';

/**
 * With an idempotency key the job id is derived from (tenant, key): two requests with the same key — even
 * concurrent ones — name the same job, the second job.created append is a no-op, and Temporal refuses a
 * second workflow with the same id. So a retried POST (or a retried activity) never makes a second job.
 */
export function mintJobId(tenantId: string, idempotencyKey: string | null): string {
  if (!idempotencyKey) return `job_${randomUUID().replaceAll('-', '')}`;
  const digest = createHash('sha256').update(`${tenantId}\n${idempotencyKey}`).digest('hex');
  return `job_${digest.slice(0, 32)}`;
}

export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** What job.created records of a job beside its spec: its type, URL, debug switch and (crawls) max_depth. */
function jobFacts(spec: JobSpec) {
  return {
    type: spec.kind,
    url: spec.url,
    captureDebug: spec.kind === 'map' ? false : spec.captureDebug,
    maxDepth: spec.kind === 'crawl' ? spec.options.max_depth : undefined,
  };
}

/** A workflow's input: the job's spec without its kind (the workflow type says it), with the job's ids. */
export type WorkflowInput = { [K in JobKind]: WorkflowInputOf<K> }[JobKind];

/**
 * How the job's workflow starts: its type chosen by the spec's kind, its id the job's, its input the spec
 * with the job's ids, its log from seq 1 (job.created is seq 0), and its task timeout where it has its own.
 */
export function workflowStart(spec: JobSpec, job: { jobId: string; tenantId: string }) {
  const { kind, ...fields } = spec;
  const input: WorkflowInput = { ...fields, jobId: job.jobId, tenantId: job.tenantId, firstSeq: 1 };
  const taskTimeout = WORKFLOW_TASK_TIMEOUTS[kind];
  return {
    workflowType: WORKFLOW_TYPES[kind],
    workflowId: workflowIdForJob(kind, job.jobId),
    input,
    ...(taskTimeout ? { workflowTaskTimeout: taskTimeout } : {}),
  };
}

/** Whether the job has a one-job model key (given in its request, stored sealed with the job). */
export function hasJobKey(spec: JobSpec): boolean {
  return (spec.kind === 'extract' || spec.kind === 'crawl') && Boolean(spec.llm?.hasKey);
}

/** What beforeStart stores apart from the spec: a one-job model key, webhook destinations. */
export function needsSecrets(spec: JobSpec): boolean {
  return hasJobKey(spec) || spec.webhooks !== undefined;
}

/** What job.created says about a job beside its ids. */
export interface JobRecord {
  jobId: string;
  workflowId: string;
  tenantId: string;
  idempotencyKey: string | null;
  /** What the job runs: stored as the job's request (no ids, no secrets). */
  spec: JobSpec;
  retryOf?: string;
  monitorId?: string;
}

/**
 * Numbers the job among its tenant's jobs and appends its job.created event (a no-op when it is already
 * there). `alongside` runs beside the numbering (the API marks the job as being started).
 */
export async function recordJobCreated(
  deps: { events: EventStore; jobs: JobReader },
  record: JobRecord,
  alongside?: () => Promise<unknown>,
): Promise<Extract<JobEvent, { type: 'job.created' }>> {
  const { created, projected } = await appendJobCreated(deps, record, alongside);
  await projected;
  return created;
}

/**
 * recordJobCreated, answering once the event is in the log: `projected` settles when the job's read models
 * show it, so a caller may start the job's workflow meanwhile (the projector takes the job's events in any
 * order of arrival) and await it before it answers anyone.
 */
export async function appendJobCreated(
  deps: { events: EventStore; jobs: JobReader },
  record: JobRecord,
  alongside?: () => Promise<unknown>,
): Promise<{ created: Extract<JobEvent, { type: 'job.created' }>; projected: Promise<unknown> }> {
  const [, tenantSeq] = await Promise.all([
    alongside?.(),
    deps.jobs.nextTenantSeq(record.tenantId, record.jobId),
  ]);
  const facts = jobFacts(record.spec);
  const created: Extract<JobEvent, { type: 'job.created' }> = {
    type: 'job.created',
    job_id: record.jobId,
    tenant_id: record.tenantId,
    seq: 0,
    event_id: randomUUID(),
    at: new Date().toISOString(),
    data: {
      job_type: facts.type,
      url: facts.url,
      capture_debug: facts.captureDebug,
      workflow_id: record.workflowId,
      idempotency_key: record.idempotencyKey,
      tenant_seq: tenantSeq,
      ...(facts.maxDepth === undefined ? {} : { max_depth: facts.maxDepth }),
      ...(record.retryOf ? { retry_of: record.retryOf } : {}),
      ...(record.monitorId ? { monitor_id: record.monitorId } : {}),
      request: record.spec,
    },
  };
  const written = await deps.events.appendUnprojected([created]);
  const projected = deps.events.project(record.jobId, written);
  projected.catch(() => undefined); // the caller awaits it
  return { created, projected };
}

/**
 * Gives a new job what another holder kept beside its request (sealed, never in the request): its one-job
 * model key and its webhook destinations. Idempotent (both are upserts).
 */
export async function copyJobSecrets(
  deps: { llm: LlmSettingsStore; webhooks: WebhookStore },
  fromId: string,
  toJobId: string,
  hasKey: boolean,
): Promise<void> {
  if (hasKey) {
    const key = await deps.llm.openJobKey(fromId);
    if (key) await deps.llm.putJobKey(toJobId, key);
  }
  await deps.webhooks.copyJobDestinations(fromId, toJobId);
}
