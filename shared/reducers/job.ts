// Pure reducer: job events → the `jobs` read model. Replaying every event of a job from scratch gives
// the same document as applying them one batch at a time.
import { budgetShown } from '../budget.js';
import type { ErrorCategory } from '../errors.js';
import type { JobEvent } from '../events.js';
import type { DataSource, FieldProvenance } from '../structured-data.js';
import type { JobType } from '../temporal-names.js';

export const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobView {
  id: string;
  tenant_id: string;
  type: JobType;
  url: string;
  status: JobStatus;
  workflow_id: string;
  capture_debug: boolean;
  idempotency_key: string | null;
  tenant_seq: number | null;
  /** Crawls: URLs discovered (crawl-map entries) and the max_depth option. */
  discovered_count: number;
  max_depth: number | null;
  retry_of: string | null;
  /** The job whose stored pages this one extracts again (absent: none). */
  reextract_of?: string;
  /** Absent on jobs recorded before monitors: none. */
  monitor_id?: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
  page_count: number;
  failed_count: number;
  urls_queued: number;
  token_usage_input: number;
  token_usage_output: number;
  llm_cost_usd: number;
  cost_usd: number;
  is_byok: boolean;
  /** Completed pages by where their data came from (absent on jobs projected before it was counted). */
  pages_by_source?: PagesBySource;
  /** Extracted values by where they came from, and model values not found in the page (provenance). */
  values_by_source?: ValuesBySource;
  error_category: ErrorCategory | null;
  error_message: string | null;
  /** The request's max_cost_usd and max_tokens (absent on jobs projected before budgets: none). */
  budget?: { max_cost_usd: number | null; max_tokens: number | null };
  /** A budget refused a model call and the job stopped taking pages. */
  budget_exhausted?: boolean;
  last_seq: number;
}

export type PagesBySource = Record<DataSource, number>;

export const noPagesBySource = (): PagesBySource => ({
  structured_data: 0,
  learned_extractor: 0,
  model: 0,
  mixed: 0,
});

export interface ValuesBySource {
  structured_data: number;
  learned_extractor: number;
  model: number;
  /** Model values that do not occur in the content the model was sent. */
  model_not_in_page: number;
}

export const noValuesBySource = (): ValuesBySource => ({
  structured_data: 0,
  learned_extractor: 0,
  model: 0,
  model_not_in_page: 0,
});

export function initialJob(event: Extract<JobEvent, { type: 'job.created' }>): JobView {
  return {
    id: event.job_id,
    tenant_id: event.tenant_id,
    type: event.data.job_type,
    url: event.data.url,
    status: 'pending',
    workflow_id: event.data.workflow_id,
    capture_debug: event.data.capture_debug,
    idempotency_key: event.data.idempotency_key,
    tenant_seq: event.data.tenant_seq ?? null,
    discovered_count: 0,
    max_depth: event.data.max_depth ?? null,
    retry_of: event.data.retry_of ?? null,
    // A re-extract's request names the job whose stored pages it extracts (POST /jobs/{id}/reextract).
    ...(typeof event.data.request?.reextractOf === 'string'
      ? { reextract_of: event.data.request.reextractOf }
      : {}),
    monitor_id: event.data.monitor_id ?? null,
    created_at: event.at,
    started_at: null,
    completed_at: null,
    duration_ms: null,
    page_count: 0,
    failed_count: 0,
    urls_queued: 0,
    token_usage_input: 0,
    token_usage_output: 0,
    llm_cost_usd: 0,
    cost_usd: 0,
    is_byok: false,
    error_category: null,
    error_message: null,
    budget: budgetShown(event.data.request),
    budget_exhausted: false,
    last_seq: event.seq,
  };
}

const round = (n: number) => Math.round(n * 1e9) / 1e9;

export function applyJobEvent(job: JobView, event: JobEvent): JobView {
  if (event.seq <= job.last_seq) return job; // already applied: reducers are idempotent
  const next: JobView = { ...job, last_seq: event.seq };
  switch (event.type) {
    case 'job.created':
      return next;
    case 'job.started':
      return { ...next, status: isFinal(job.status) ? job.status : 'running', started_at: event.at };
    case 'page.completed': {
      const u = event.data.usage;
      // A re-done page replaces an earlier result: it is not one more page.
      const revises = event.data.revises;
      // A map's one result lists URLs: no data came from anywhere.
      const bySource =
        job.type === 'map'
          ? { ...(job.pages_by_source ?? noPagesBySource()) }
          : countSource(job.pages_by_source, event.data.data_source ?? 'model');
      if (revises) bySource[revises.data_source] = Math.max(0, bySource[revises.data_source] - 1);
      return {
        ...next,
        page_count: job.page_count + (revises ? 0 : 1),
        urls_queued: Math.max(0, job.urls_queued - (event.data.node === undefined || revises ? 0 : 1)),
        token_usage_input: job.token_usage_input + u.input_tokens,
        token_usage_output: job.token_usage_output + u.output_tokens,
        llm_cost_usd: round(job.llm_cost_usd + u.llm_cost_usd),
        cost_usd: round(job.cost_usd + u.cost_usd),
        is_byok: job.is_byok || u.is_byok,
        pages_by_source: bySource,
        values_by_source: countValues(job.values_by_source, event.data.provenance, revises?.values),
      };
    }
    case 'crawl.discovered':
      return {
        ...next,
        urls_queued: job.urls_queued + event.data.nodes.filter((n) => n.status === 'pending').length,
        discovered_count: Math.max(job.discovered_count, ...event.data.nodes.map((n) => n.node + 1)),
      };
    case 'page.skipped':
      return {
        ...next,
        urls_queued: Math.max(0, job.urls_queued - (event.data.node === undefined ? 0 : 1)),
        // Only a budget's refusal skips a page as quota_exceeded (a provider's quota fails it).
        ...(event.data.error_category === 'quota_exceeded' ? { budget_exhausted: true } : {}),
      };
    case 'page.failed':
      return {
        ...next,
        failed_count: job.failed_count + 1,
        urls_queued: Math.max(0, job.urls_queued - (event.data.node === undefined ? 0 : 1)),
        error_category: event.data.error_category,
        error_message: event.data.error_message,
      };
    case 'job.completed':
      return {
        ...next,
        ...exhausted(event.data),
        status: 'completed',
        completed_at: event.at,
        duration_ms: event.data.duration_ms,
      };
    case 'job.failed':
      return {
        ...next,
        ...exhausted(event.data),
        status: 'failed',
        completed_at: event.at,
        duration_ms: event.data.duration_ms,
        error_category: event.data.error_category,
        error_message: event.data.error_message,
      };
    case 'job.cancelled':
      return {
        ...next,
        status: 'cancelled',
        completed_at: event.at,
        duration_ms: event.data.duration_ms,
        error_category: 'cancelled',
        error_message: 'the job was cancelled',
      };
  }
}

/** A job a budget stopped: pages it queued and never started are no longer queued. */
function exhausted(data: { budget_exhausted?: true }): Partial<JobView> {
  return data.budget_exhausted ? { budget_exhausted: true, urls_queued: 0 } : {};
}

/** Adds a page's provenance to the job's counts (less the replaced result's, for a re-done page). */
function countValues(
  counts: ValuesBySource | undefined,
  provenance: Record<string, FieldProvenance> | undefined,
  replaced: Partial<ValuesBySource> | undefined,
): ValuesBySource {
  const next = { ...(counts ?? noValuesBySource()) };
  for (const p of Object.values(provenance ?? {})) {
    next[p.source] += 1;
    if (p.source === 'model' && p.in_page === false) next.model_not_in_page += 1;
  }
  for (const [key, n] of Object.entries(replaced ?? {}) as [keyof ValuesBySource, number][])
    next[key] = Math.max(0, next[key] - n);
  return next;
}

function countSource(counts: PagesBySource | undefined, source: DataSource): PagesBySource {
  const next = { ...(counts ?? noPagesBySource()) };
  next[source] += 1;
  return next;
}

export function isFinal(status: JobStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Rebuilds a job from its full event history (sorted by seq). Returns null without a creation event. */
export function reduceJob(events: readonly JobEvent[]): JobView | null {
  const created = events.find(
    (e): e is Extract<JobEvent, { type: 'job.created' }> => e.type === 'job.created',
  );
  if (!created) return null;
  return events.reduce(applyJobEvent, initialJob(created));
}
