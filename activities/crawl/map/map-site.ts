// The mapSite activity: a site's URLs from its sitemaps, then a shallow walk of its links, within the map's
// time budget, recorded as the job's one page result under the seq the workflow reserved. The URL list never
// passes through workflow history: the activity answers counts only.
import type { PageCompletedData } from '../../../shared/events.js';
import { MAP_TIME_BUDGET_MS, type MapResult } from '../../../shared/schemas/map.js';
import { currentActivity } from '../../common/activity-context.js';
import type { StoreDeps } from '../../common/deps.js';
import { cancellationOf, categorized } from '../../common/failure.js';
import { type MapOptions, MapRun } from './map-run.js';
import { walkLinks } from './page-links.js';
import { readSitemaps } from './sitemaps.js';

export interface MapSiteInput extends MapOptions {
  jobId: string;
  tenantId: string;
  pageId: string;
  eventSeq: number;
  eventId: string;
}

export interface MapSiteResult {
  urlCount: number;
  truncated: boolean;
  warningCount: number;
}

const NO_USAGE = { input_tokens: 0, output_tokens: 0, llm_cost_usd: 0, cost_usd: 0, is_byok: false };

export function makeMapSite(deps: StoreDeps) {
  // The worker heartbeats for it while it runs (worker/interceptors.ts); its steps leave the event loop free.
  return async function mapSite(input: MapSiteInput): Promise<MapSiteResult> {
    return categorized(async () => {
      const started = Date.now();
      const signal = currentActivity()?.cancellationSignal;
      const run = new MapRun(input, deps.config, started + MAP_TIME_BUDGET_MS, signal);
      if (input.useSitemap) await readSitemaps(run);
      const startFailure = run.done ? null : await walkLinks(run);
      const cancelled = cancellationOf();
      if (cancelled) throw cancelled;
      const { urls, truncated } = run.collector;
      // Nothing found and the start page failed: the job fails as that page did (ssrf_blocked, fetch_error…).
      if (urls.length === 0 && startFailure) throw startFailure;
      const result: MapResult = {
        url: input.url,
        urls,
        total: urls.length,
        truncated,
        sitemaps_read: run.sitemapsRead,
        pages_read: run.pagesRead,
        warnings: run.warnings,
      };
      await record(deps, input, result, started);
      return { urlCount: urls.length, truncated, warningCount: run.warnings.length };
    });
  };
}

async function record(deps: StoreDeps, input: MapSiteInput, result: MapResult, started: number) {
  const data: PageCompletedData = {
    page_id: input.pageId,
    url: input.url,
    final_url: input.url,
    depth: 0,
    parent_url: null,
    data: result,
    input_format: 'map',
    fetch_mode: 'static',
    fetched_at: new Date(started).toISOString(),
    fetch_duration_ms: Date.now() - started,
    clean_duration_ms: 0,
    extract_duration_ms: 0,
    provider: '',
    model: '',
    fallback_position: 0,
    usage: NO_USAGE,
    price_known: true,
  };
  await deps.events.append([
    {
      type: 'page.completed',
      data,
      job_id: input.jobId,
      tenant_id: input.tenantId,
      seq: input.eventSeq,
      event_id: input.eventId,
      at: new Date().toISOString(),
    },
  ]);
}
