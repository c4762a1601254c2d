// Pure reducer: page events → the `results` read model, one document per job and page URL.
import type { ErrorCategory } from '../errors.js';
import type { JobEvent } from '../events.js';
import type { ActionOutcome } from '../schemas/actions.js';
import type { DataSource, FieldProvenance } from '../structured-data.js';

export const PAGE_STATUSES = ['pending', 'crawling', 'completed', 'failed', 'skipped'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

export interface ResultView {
  id: string;
  job_id: string;
  tenant_id: string;
  url: string;
  final_url: string;
  status: PageStatus;
  seq: number;
  /** The page's crawl-map node (crawls); the crawl map takes the page's outcome from here. */
  node: number | null;
  depth: number;
  parent_url: string | null;
  data: unknown;
  input_format: string | null;
  fetch_mode: string | null;
  fetched_at: string | null;
  /** The page came from the page store (absent: fetched for this job). */
  from_cache?: boolean;
  /** What was read (completed pages recorded since it was). */
  content_type?: string;
  /** Page actions' outcomes (dynamic mode with actions). */
  actions?: ActionOutcome[];
  fetch_duration_ms: number | null;
  /** Absent on results projected before it was shown. */
  clean_duration_ms?: number | null;
  extract_duration_ms: number | null;
  provider: string | null;
  model: string | null;
  fallback_position: number | null;
  input_tokens: number;
  output_tokens: number;
  llm_cost_usd: number;
  cost_usd: number;
  is_byok: boolean;
  price_known: boolean;
  /** Where the data came from; null for pages that did not complete. */
  data_source?: DataSource | null;
  structured_fields?: string[];
  /** Where each field's value came from (pages recorded before provenance: absent). */
  provenance?: Record<string, FieldProvenance> | null;
  error_category: ErrorCategory | null;
  error_message: string | null;
  completed_at: string;
}

/** The result document a page event produces, or null for events that do not touch results. */
export function resultFromEvent(event: JobEvent): ResultView | null {
  const base = { job_id: event.job_id, tenant_id: event.tenant_id, seq: event.seq, completed_at: event.at };
  const node =
    (event.type === 'page.completed' || event.type === 'page.failed' || event.type === 'page.skipped'
      ? event.data.node
      : undefined) ?? null;
  if (event.type === 'page.completed') {
    const d = event.data;
    return {
      ...base,
      // A re-done page takes the place of the result it replaces.
      ...(d.revises ? { seq: d.revises.seq } : {}),
      node,
      id: d.page_id,
      url: d.url,
      final_url: d.final_url,
      status: 'completed',
      depth: d.depth,
      parent_url: d.parent_url,
      data: d.data,
      input_format: d.input_format,
      fetch_mode: d.fetch_mode,
      fetched_at: d.fetched_at,
      ...(d.from_cache ? { from_cache: true } : {}),
      ...(d.content_type ? { content_type: d.content_type } : {}),
      ...(d.actions ? { actions: d.actions } : {}),
      fetch_duration_ms: d.fetch_duration_ms,
      clean_duration_ms: d.clean_duration_ms,
      extract_duration_ms: d.extract_duration_ms,
      provider: d.provider,
      model: d.model,
      fallback_position: d.fallback_position,
      input_tokens: d.usage.input_tokens,
      output_tokens: d.usage.output_tokens,
      llm_cost_usd: d.usage.llm_cost_usd,
      cost_usd: d.usage.cost_usd,
      is_byok: d.usage.is_byok,
      price_known: d.price_known,
      data_source: d.data_source ?? 'model',
      structured_fields: d.structured_fields ?? [],
      provenance: d.provenance ?? null,
      error_category: null,
      error_message: null,
    };
  }
  if (event.type === 'page.failed' || event.type === 'page.skipped') {
    const d = event.data;
    return {
      ...base,
      node,
      id: d.page_id,
      url: d.url,
      final_url: d.url,
      status: event.type === 'page.failed' ? 'failed' : 'skipped',
      depth: d.depth,
      parent_url: d.parent_url,
      data: null,
      input_format: null,
      fetch_mode: null,
      fetched_at: null,
      fetch_duration_ms: null,
      clean_duration_ms: null,
      extract_duration_ms: null,
      provider: null,
      model: null,
      fallback_position: null,
      input_tokens: 0,
      output_tokens: 0,
      llm_cost_usd: 0,
      cost_usd: 0,
      is_byok: false,
      price_known: true,
      error_category: d.error_category,
      error_message: d.error_message,
    };
  }
  return null;
}
