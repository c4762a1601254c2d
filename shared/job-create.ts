// Recording a new job: its id, its number among the tenant's jobs and its job.created event. Shared by the
// API (which then starts the job's workflow) and the monitor activities (whose workflow runs it as a child),
// so a job is created the same way whoever creates it.
import { createHash, randomUUID } from 'node:crypto';
import type { JobEvent } from './events.js';
import type { EventStore } from './store/event-store.js';
import type { JobReader } from './store/jobs.js';
import type { LlmSettingsStore } from './store/llm-settings.js';
import type { WebhookStore } from './store/webhooks.js';
import type { JobType } from './temporal-names.js';

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

/** The workflow input as the job's stored request: ids dropped (they belong to the job), no secrets in it. */
export function requestOf(input: unknown): Record<string, unknown> {
  const { jobId, tenantId, firstSeq, state, ...request } = input as Record<string, unknown>;
  return request;
}

/** The workflow input a stored request makes for a job: the request with the job's ids, its log from seq 1. */
export function inputFromRequest(request: Record<string, unknown>, jobId: string, tenantId: string) {
  return { ...request, jobId, tenantId, firstSeq: 1 };
}

/** A page of an earlier job that a new job runs again (retry, re-extract). */
export interface EarlierPage {
  id: string;
  url: string;
  depth: number;
  parent_url: string | null;
}

/**
 * The workflow input of a job over pages of an earlier one, from the earlier job's stored request: a
 * single-page job (extract, analyze) over its page, a crawl over exactly these pages with no link followed
 * (its limit is their number). `fromPage` adds what a page's input needs to be read from the page store
 * (nothing: fetched again). Pure: the same stored request and pages always make the same input.
 */
export function inputOnPages(
  request: Record<string, unknown>,
  job: { jobId: string; tenantId: string; type: JobType },
  pages: readonly EarlierPage[],
  fromPage: (pageId: string) => Record<string, unknown>,
): Record<string, unknown> {
  const input = inputFromRequest(request, job.jobId, job.tenantId);
  if (job.type !== 'crawl') {
    const [page] = pages;
    return page ? { ...input, ...fromPage(page.id) } : input;
  }
  const options = (input as { options?: Record<string, unknown> }).options ?? {};
  return {
    ...input,
    seeds: pages.map((r) => ({ url: r.url, depth: r.depth, parentUrl: r.parent_url, ...fromPage(r.id) })),
    // These pages only: no new links are followed.
    options: {
      ...options,
      follow_selector: undefined,
      follow_pattern: undefined,
      next_selector: undefined,
      max_pages: pages.length,
    },
  };
}

/** What job.created says about a job beside its ids. */
export interface JobRecordSpec {
  jobId: string;
  workflowId: string;
  tenantId: string;
  type: JobType;
  url: string;
  captureDebug: boolean;
  idempotencyKey: string | null;
  /** The workflow's input (its ids are dropped: the stored request). */
  input: unknown;
  maxDepth?: number;
  retryOf?: string;
  monitorId?: string;
}

/**
 * Numbers the job among its tenant's jobs and appends its job.created event (a no-op when it is already
 * there). `alongside` runs beside the numbering (the API marks the job as being started).
 */
export async function recordJobCreated(
  deps: { events: EventStore; jobs: JobReader },
  spec: JobRecordSpec,
  alongside?: () => Promise<unknown>,
): Promise<Extract<JobEvent, { type: 'job.created' }>> {
  const { created, projected } = await appendJobCreated(deps, spec, alongside);
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
  spec: JobRecordSpec,
  alongside?: () => Promise<unknown>,
): Promise<{ created: Extract<JobEvent, { type: 'job.created' }>; projected: Promise<unknown> }> {
  const [, tenantSeq] = await Promise.all([
    alongside?.(),
    deps.jobs.nextTenantSeq(spec.tenantId, spec.jobId),
  ]);
  const created: Extract<JobEvent, { type: 'job.created' }> = {
    type: 'job.created',
    job_id: spec.jobId,
    tenant_id: spec.tenantId,
    seq: 0,
    event_id: randomUUID(),
    at: new Date().toISOString(),
    data: {
      job_type: spec.type,
      url: spec.url,
      capture_debug: spec.captureDebug,
      workflow_id: spec.workflowId,
      idempotency_key: spec.idempotencyKey,
      tenant_seq: tenantSeq,
      ...(spec.maxDepth === undefined ? {} : { max_depth: spec.maxDepth }),
      ...(spec.retryOf ? { retry_of: spec.retryOf } : {}),
      ...(spec.monitorId ? { monitor_id: spec.monitorId } : {}),
      request: requestOf(spec.input),
    },
  };
  const written = await deps.events.appendUnprojected([created]);
  const projected = deps.events.project(spec.jobId, written);
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
