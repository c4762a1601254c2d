// The service's Prometheus series, one registry per instance (the API and the worker each build one; a test
// running both in one process gets two, never a global singleton). Names carry the service prefix; labels are
// bounded (shared/metrics/labels.ts): no URL, job id or, unless the operator asks, tenant.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { CappedLabel } from './labels.js';

export const METRIC_PREFIX = 'extract_service_';

/** Seconds, from a cached page's few milliseconds to a slow model's minutes. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const JOB_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600, 14400];
/** Distinct model names kept as labels; more fold into "other". */
export const MODEL_LABEL_LIMIT = 30;

export interface MetricsOptions {
  /** `tenant` label on job and page series (METRICS_TENANT_LABELS). */
  tenantLabels?: boolean;
  /** Node's process metrics (CPU, memory, event-loop lag, GC) under the standard names. */
  processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const t = options.tenantLabels ? (['tenant'] as const) : ([] as const);
  const n = (name: string) => `${METRIC_PREFIX}${name}`;
  const registers = [registry];
  const metrics = {
    registry,
    tenantLabels: options.tenantLabels === true,
    models: new CappedLabel(MODEL_LABEL_LIMIT),
    jobsCreated: new Counter({
      name: n('jobs_created_total'),
      help: 'Jobs accepted (job.created recorded), by job type.',
      labelNames: ['job_type', ...t],
      registers,
    }),
    jobsStarted: new Counter({
      name: n('jobs_started_total'),
      help: 'Jobs whose workflow began (job.started recorded), by job type.',
      labelNames: ['job_type', ...t],
      registers,
    }),
    jobsCompleted: new Counter({
      name: n('jobs_completed_total'),
      help: 'Jobs completed, by job type.',
      labelNames: ['job_type', ...t],
      registers,
    }),
    jobsFailed: new Counter({
      name: n('jobs_failed_total'),
      help: 'Jobs failed, by job type and error category.',
      labelNames: ['job_type', 'error_category', ...t],
      registers,
    }),
    jobsCancelled: new Counter({
      name: n('jobs_cancelled_total'),
      help: 'Jobs cancelled, by job type.',
      labelNames: ['job_type', ...t],
      registers,
    }),
    jobDuration: new Histogram({
      name: n('job_duration_seconds'),
      help: 'Time from job.started to the job ending, by job type and final status.',
      labelNames: ['job_type', 'status'],
      buckets: JOB_BUCKETS,
      registers,
    }),
    pages: new Counter({
      name: n('pages_total'),
      help: 'Pages recorded, by job type, outcome (completed, failed, skipped), data source and error category.',
      labelNames: ['job_type', 'outcome', 'data_source', 'error_category', ...t],
      registers,
    }),
    stageDuration: new Histogram({
      name: n('stage_duration_seconds'),
      help: "A page's stages: fetch, clean, model (from its page.completed) and record (writing job events).",
      labelNames: ['stage'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    activityDuration: new Histogram({
      name: n('activity_duration_seconds'),
      help: 'Temporal activities run by this worker, by activity type and outcome (ok, error, cancelled).',
      labelNames: ['activity', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    activitiesRunning: new Gauge({
      name: n('activities_running'),
      help: 'Activities running in this worker now, by activity type.',
      labelNames: ['activity'],
      registers,
    }),
    modelTokens: new Counter({
      name: n('model_tokens_total'),
      help: 'Model tokens of recorded pages, by provider, model and direction (input, output).',
      labelNames: ['provider', 'model', 'direction'],
      registers,
    }),
    modelCost: new Counter({
      name: n('model_cost_usd_total'),
      help: "Model list-price cost (USD) of recorded pages, by provider, model and key (operator's or tenant's).",
      labelNames: ['provider', 'model', 'key'],
      registers,
    }),
    modelCalls: new Counter({
      name: n('model_pages_total'),
      help: 'Pages answered by a model, by provider, model and whether it was a fallback of the chain.',
      labelNames: ['provider', 'model', 'fallback'],
      registers,
    }),
    crawlDiscovered: new Counter({
      name: n('crawl_urls_discovered_total'),
      help: 'URLs a crawl found: queued (pending) or not followed (skipped).',
      labelNames: ['status'],
      registers,
    }),
    crawlFrontierStored: new Counter({
      name: n('crawl_frontier_pages_stored_total'),
      help: "Queued crawl pages moved out of a workflow's history into stored frontier chunks.",
      registers,
    }),
    webhookDeliveries: new Counter({
      name: n('webhook_deliveries_total'),
      help:
        'Webhook delivery attempts by outcome (success; retry: failed, another attempt follows; failed: the ' +
        'last attempt failed; no_destination; error: the attempt itself broke) and attempt (1, 2, 3, 4+).',
      labelNames: ['outcome', 'attempt'],
      registers,
    }),
    jobsRunning: new Gauge({
      name: n('jobs_running'),
      help: 'Jobs whose workflow is running, by job type (Temporal visibility, read at most every 10 s).',
      labelNames: ['job_type'],
      registers,
    }),
    crawlPagesQueued: new Gauge({
      name: n('crawl_pages_queued'),
      help: 'URLs queued (found, not yet processed) over the running crawls (their projections; at most 200 crawls).',
      registers,
    }),
    crawlFrontierLargest: new Gauge({
      name: n('crawl_frontier_largest'),
      help: "The largest running crawl's queue of URLs.",
      registers,
    }),
    browserPagesInUse: new Gauge({
      name: n('browser_pages_in_use'),
      help: 'Headless browser pages rendering in this worker now (at most BROWSER_MAX_PAGES).',
      registers,
    }),
    browserPagesKept: new Gauge({
      name: n('browser_pages_kept'),
      help: "Headless browser pages this worker keeps open between renders, each for its (tenant, site session) scope's next render (BROWSER_PAGE_IDLE_MS).",
      registers,
    }),
    browserPagesWaiting: new Gauge({
      name: n('browser_pages_waiting'),
      help: 'Dynamic fetches in this worker waiting for a browser page.',
      registers,
    }),
  };
  return metrics;
}

export type ServiceMetrics = ReturnType<typeof createMetrics>;
