// Job events: the append-only log from which every read model is derived. Types only, so workflows can
// import them without pulling in a driver or a validator.
import type { ErrorCategory } from './errors.js';
import type { ActionOutcome } from './schemas/actions.js';
import type { DataSource, FieldProvenance } from './structured-data.js';
import type { JobType } from './temporal-names.js';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  llm_cost_usd: number;
  cost_usd: number;
  is_byok: boolean;
}

export interface JobCreatedData {
  job_type: JobType;
  url: string;
  capture_debug: boolean;
  workflow_id: string;
  idempotency_key: string | null;
  /** The job's number among its tenant's jobs (1, 2, …), for newest-first lists and queue positions. */
  tenant_seq?: number;
  /** Crawls: the max_depth option, for the crawl map. */
  max_depth?: number;
  /**
   * The job's spec (shared/schemas/job-spec.ts; never a secret), so the job can be retried as it ran: read it
   * with readJobSpec (jobs recorded before specs had a kind stored the same fields without it).
   */
  request?: Record<string, unknown>;
  /** The job this one retries (POST /jobs/{id}/retry). */
  retry_of?: string;
  /** The monitor whose run this job is (POST /monitors). */
  monitor_id?: string;
}

/** A URL a crawl found: queued (pending) or not followed (skipped, with the reason). */
export interface CrawlNode {
  /** Discovery number within the job (0 = seed): the crawl map's key for this URL. */
  node: number;
  url: string;
  parent_url: string | null;
  depth: number;
  status: 'pending' | 'skipped';
  reason?: string;
}

export interface PageCompletedData {
  /** The page's crawl-map node (crawls). */
  node?: number;
  page_id: string;
  url: string;
  final_url: string;
  depth: number;
  parent_url: string | null;
  data: unknown;
  input_format: string;
  fetch_mode: string;
  fetched_at: string;
  /** The page came from the page store (max_age, re-extract, retry without a fetch), fetched at fetched_at. */
  from_cache?: true;
  /** What was read (text/html, application/pdf, an Office type); absent on pages recorded before it was. */
  content_type?: string;
  /** Page actions run before the page was read: each step's outcome (typed text only as its length). */
  actions?: ActionOutcome[];
  fetch_duration_ms: number;
  clean_duration_ms: number;
  extract_duration_ms: number;
  provider: string;
  model: string;
  fallback_position: number;
  usage: Usage;
  price_known: boolean;
  /** Where the data came from (absent on pages recorded before structured data was read: the model). */
  data_source?: DataSource;
  /** The fields answered from the page's structured data. */
  structured_fields?: string[];
  /** Where each top-level field's value came from (absent on pages recorded before provenance). */
  provenance?: Record<string, FieldProvenance>;
  /**
   * A re-done page: the seq of the result it replaces (its learned extractor failed a later check, so the
   * page was extracted again by the model), and where that result's data came from.
   */
  revises?: {
    seq: number;
    data_source: DataSource;
    /** The replaced result's values by source (job totals count the new ones instead). */
    values?: Partial<Record<FieldProvenance['source'], number>>;
  };
}

export interface PageFailedData {
  node?: number;
  page_id: string;
  url: string;
  depth: number;
  parent_url: string | null;
  error_category: ErrorCategory;
  error_message: string;
}

export interface JobFailedData {
  error_category: ErrorCategory;
  error_message: string;
}

export type JobEventBody =
  | { type: 'job.created'; data: JobCreatedData }
  | { type: 'job.started'; data: Record<string, never> }
  | { type: 'page.completed'; data: PageCompletedData }
  | { type: 'page.failed'; data: PageFailedData }
  /** Not processed: robots.txt, not HTML, out of limits, or the job ended first. */
  | { type: 'page.skipped'; data: PageFailedData }
  | { type: 'crawl.discovered'; data: { nodes: CrawlNode[] } }
  /** budget_exhausted: a budget refused a model call, so the job stopped taking pages. */
  | { type: 'job.completed'; data: { duration_ms: number; budget_exhausted?: true } }
  | { type: 'job.failed'; data: JobFailedData & { duration_ms: number; budget_exhausted?: true } }
  | { type: 'job.cancelled'; data: { duration_ms: number } };

export type JobEventType = JobEventBody['type'];

/**
 * One stored event. `seq` is a per-job sequence number made by the writer; (job_id, seq) is unique, and
 * seqs are gap-free: every seq a workflow reserves is eventually written exactly once (a page whose
 * extraction fails records its page.failed under the seq reserved for its result). Readers rely on this:
 * they read a job's log by probing consecutive seqs.
 */
export type JobEvent = JobEventBody & {
  job_id: string;
  tenant_id: string;
  seq: number;
  event_id: string;
  at: string;
};
