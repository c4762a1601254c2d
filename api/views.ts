// Read models → API resources. The projections carry bookkeeping (tenant, last_seq) the API never shows.
import { type JobView, noPagesBySource, noValuesBySource } from '../shared/reducers/job.js';
import type { ResultView } from '../shared/reducers/results.js';
import { pageScreenshots } from '../shared/schemas/actions.js';
import type { AnalyzeResponse } from '../shared/schemas/analyze.js';
import type { ExtractResponse } from '../shared/schemas/extract.js';
import type { Job } from '../shared/schemas/job.js';
import type { MapResponse, MapResult } from '../shared/schemas/map.js';
import type { JobResult } from '../shared/schemas/results.js';
import type { ApiDeps } from './deps.js';

export async function jobResource(deps: ApiDeps, job: JobView): Promise<Job> {
  return {
    id: job.id,
    type: job.type,
    url: job.url,
    status: job.status,
    created_at: job.created_at,
    started_at: job.started_at,
    completed_at: job.completed_at,
    duration_ms: job.duration_ms,
    page_count: job.page_count,
    failed_count: job.failed_count,
    urls_queued: job.urls_queued,
    token_usage_input: job.token_usage_input,
    token_usage_output: job.token_usage_output,
    llm_cost_usd: job.llm_cost_usd,
    cost_usd: job.cost_usd,
    is_byok: job.is_byok,
    pages_by_source: { ...noPagesBySource(), ...job.pages_by_source },
    values_by_source: job.values_by_source ?? noValuesBySource(),
    error_category: job.error_category,
    error_message: job.error_message,
    max_cost_usd: job.budget?.max_cost_usd ?? null,
    max_tokens: job.budget?.max_tokens ?? null,
    budget_exhausted: job.budget_exhausted ?? false,
    capture_debug: job.capture_debug,
    queue_position: await deps.jobs.queuePosition(job),
    workflow_id: job.workflow_id,
    retry_of: job.retry_of ?? null,
    reextract_of: job.reextract_of ?? null,
    monitor_id: job.monitor_id ?? null,
  };
}

export function extractResponse(job: JobView, page: ResultView): ExtractResponse {
  return {
    data: page.data,
    fetched_at: page.fetched_at ?? page.completed_at,
    input_format: (page.input_format ?? 'prompt') as ExtractResponse['input_format'],
    job_id: job.id,
    url: page.url,
    metadata: {
      extract_duration_ms: page.extract_duration_ms ?? 0,
      fetch_duration_ms: page.fetch_duration_ms ?? 0,
      clean_duration_ms: page.clean_duration_ms ?? 0,
      model: page.model ?? '',
      provider: page.provider ?? '',
      fetch_mode: page.fetch_mode ?? '',
      from_cache: page.from_cache ?? false,
      content_type: page.content_type ?? '',
      ...(page.actions ? { actions: page.actions } : {}),
      ...screenshotsOf(page),
      final_url: page.final_url,
      fallback_position: page.fallback_position ?? 0,
      price_known: page.price_known,
      data_source: page.data_source ?? 'model',
      structured_fields: page.structured_fields ?? [],
      provenance: page.provenance ?? {},
    },
    usage: {
      input_tokens: page.input_tokens,
      output_tokens: page.output_tokens,
      llm_cost_usd: page.llm_cost_usd,
      cost_usd: page.cost_usd,
      is_byok: page.is_byok,
    },
  };
}

/** An analyze job's one page result holds the analysis with its sample_data (activities/analyze). */
export function analyzeResponse(job: JobView, page: ResultView): AnalyzeResponse {
  return { ...(page.data as Omit<AnalyzeResponse, 'job_id'>), job_id: job.id };
}

/** A map job's one page result holds the map (activities/crawl/map/map-site.ts). */
export function mapResponse(job: JobView, page: ResultView): MapResponse {
  return { ...(page.data as MapResult), job_id: job.id, status: 'completed' };
}

/**
 * A page result as the results endpoint (and the stream's result events) show it: spec fields first; with
 * `include_provenance`, where each value came from.
 */
export function jobResult(page: ResultView, opts: { provenance?: boolean } = {}): JobResult {
  const result: JobResult = {
    id: page.id,
    url: page.url,
    status: page.status,
    data: page.data ?? null,
    error_category: page.error_category,
    error_message: page.error_message,
  };
  // Pages that came from the page store say so, with the time they were fetched.
  if (page.from_cache) Object.assign(result, { from_cache: true, fetched_at: page.fetched_at });
  Object.assign(result, screenshotsOf(page));
  if (opts.provenance)
    result.provenance = page.status === 'completed' ? { ...(page.provenance ?? {}) } : null;
  return result;
}

/** `screenshots` of a page that took any (their sizes from its actions' outcomes, and where to read them). */
function screenshotsOf(page: ResultView) {
  const shots = pageScreenshots(page.job_id, page.id, page.actions);
  return shots.length ? { screenshots: shots } : {};
}
