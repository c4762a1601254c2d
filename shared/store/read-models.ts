// The read models' documents and their `_id`s: what the projector (job-projector.ts) writes and the job
// reader (jobs.ts) reads. Every one is found by a composed `_id`.
import type { CrawlNode, JobEvent } from '../events.js';
import type { JobView } from '../reducers/job.js';
import type { ResultView } from '../reducers/results.js';
import type { DataSource } from '../structured-data.js';
import { pad } from './mongo.js';

export interface ResultChunkDoc {
  _id: string;
  job_id: string;
  pages: Record<string, ResultView>;
}
/** `<job id>:<last_seq of the version it replaced>` → the version that replaced it (see JobProjector.writeJob). */
export interface JobVersionDoc {
  _id: string;
  job: JobView;
}
export interface TenantCounterDoc {
  _id: string;
  job_seq: number;
  pending: number[];
}

export const RESULTS_PER_CHUNK = 10;
export const CRAWL_MAP_PER_CHUNK = 25;

export interface CrawlMapEntry {
  id: string;
  node: number;
  url: string;
  parent_url: string | null;
  status: string;
  depth: number;
  discovered_at: string;
  completed_at: string | null;
  error_category: string | null;
  error_details: string | null;
  error_message: string | null;
  llm_model: string | null;
  llm_provider: string | null;
  extract_duration_ms: number | null;
  fetch_duration_ms: number | null;
  clean_duration_ms?: number | null;
  token_usage_input: number;
  token_usage_output: number;
  /** Where a completed page's data came from (absent on entries projected before it was shown). */
  data_source?: DataSource | null;
}
export interface CrawlMapChunkDoc {
  _id: string;
  job_id: string;
  entries: Record<string, CrawlMapEntry>;
}
export const resultChunkKey = (jobId: string, chunk: number) => `${jobId}:${pad(chunk, 6)}`;
export const crawlMapChunkKey = (jobId: string, chunk: number) => `${jobId}:${pad(chunk, 6)}`;
export const jobVersionKey = (jobId: string, lastSeq: number) => `${jobId}:${pad(lastSeq, 8)}`;
export const tenantJobKey = (tenantId: string, n: number) => `${tenantId}:${pad(n, 10)}`;

/** A crawl-map entry as its page is discovered (the page's outcome is read from its result). */
export function discoveredEntry(event: JobEvent, n: CrawlNode): CrawlMapEntry {
  return {
    id: `${event.job_id}-${n.node}`,
    node: n.node,
    url: n.url,
    parent_url: n.parent_url,
    status: n.status,
    depth: n.depth,
    discovered_at: event.at,
    completed_at: null,
    error_category: null,
    error_details: n.reason ?? null,
    error_message: null,
    llm_model: null,
    llm_provider: null,
    extract_duration_ms: null,
    fetch_duration_ms: null,
    clean_duration_ms: null,
    token_usage_input: 0,
    token_usage_output: 0,
    data_source: null,
  };
}
