// Counting from the job events as they are written: the one place every job and page passes through, in
// the process that writes them (the API writes job.created, workers the rest). The event store hands over
// only events newly stored, so an activity's retry that rewrites an event does not count it twice.
import type { JobEvent, PageCompletedData } from '../events.js';
import { categoryLabel, dataSourceLabel, jobTypeLabel, NONE, providerLabel } from './labels.js';
import type { ServiceMetrics } from './registry.js';

/** Which kind of job an event belongs to; events other than job.created do not say. */
export type JobTypeOf = (event: JobEvent) => string | undefined;

const JOB_TYPE_CACHE = 10_000;

/**
 * A listener for EventStore.onWritten. `jobTypeOf` is asked for events other than job.created (the worker
 * reads its activity's workflow type); job types this process saw created are remembered, bounded.
 */
export function jobEventCounter(metrics: ServiceMetrics, jobTypeOf: JobTypeOf = () => undefined) {
  const types = new Map<string, string>();
  const typeOf = (event: JobEvent): string => {
    if (event.type === 'job.created') {
      if (types.size >= JOB_TYPE_CACHE) types.delete(types.keys().next().value as string);
      types.set(event.job_id, event.data.job_type);
      return jobTypeLabel(event.data.job_type);
    }
    return jobTypeLabel(types.get(event.job_id) ?? jobTypeOf(event));
  };
  return (events: readonly JobEvent[], recordMs: number): void => {
    metrics.stageDuration.observe({ stage: 'record' }, recordMs / 1000);
    for (const event of events) countEvent(metrics, event, typeOf(event));
  };
}

function countEvent(metrics: ServiceMetrics, event: JobEvent, jobType: string): void {
  const tenant = metrics.tenantLabels ? { tenant: event.tenant_id } : {};
  const job = { job_type: jobType, ...tenant };
  const ended = (status: string, ms: number) =>
    metrics.jobDuration.observe({ job_type: jobType, status }, Math.max(0, ms) / 1000);
  switch (event.type) {
    case 'job.created':
      metrics.jobsCreated.inc(job);
      break;
    case 'job.started':
      metrics.jobsStarted.inc(job);
      break;
    case 'job.completed':
      ended('completed', event.data.duration_ms);
      metrics.jobsCompleted.inc(job);
      break;
    case 'job.failed':
      ended('failed', event.data.duration_ms);
      metrics.jobsFailed.inc({ ...job, error_category: categoryLabel(event.data.error_category) });
      break;
    case 'job.cancelled':
      ended('cancelled', event.data.duration_ms);
      metrics.jobsCancelled.inc(job);
      break;
    case 'crawl.discovered':
      for (const node of event.data.nodes) metrics.crawlDiscovered.inc({ status: node.status });
      break;
    case 'page.completed':
      countCompletedPage(metrics, event.data, job);
      break;
    case 'page.failed':
    case 'page.skipped':
      metrics.pages.inc({
        ...job,
        outcome: event.type === 'page.failed' ? 'failed' : 'skipped',
        data_source: NONE,
        error_category: categoryLabel(event.data.error_category),
      });
      break;
  }
}

function countCompletedPage(
  metrics: ServiceMetrics,
  page: PageCompletedData,
  job: { job_type: string; tenant?: string },
): void {
  const source = dataSourceLabel(page.data_source);
  metrics.pages.inc({ ...job, outcome: 'completed', data_source: source, error_category: NONE });
  const seconds = (ms: number) => Math.max(0, ms) / 1000;
  metrics.stageDuration.observe({ stage: 'fetch' }, seconds(page.fetch_duration_ms));
  metrics.stageDuration.observe({ stage: 'clean' }, seconds(page.clean_duration_ms));
  const usage = page.usage;
  const usedModel = usage.input_tokens > 0 || usage.output_tokens > 0;
  if (!usedModel) return;
  metrics.stageDuration.observe({ stage: 'model' }, seconds(page.extract_duration_ms));
  const model = { provider: providerLabel(page.provider), model: metrics.models.of(page.model) };
  metrics.modelTokens.inc({ ...model, direction: 'input' }, usage.input_tokens);
  metrics.modelTokens.inc({ ...model, direction: 'output' }, usage.output_tokens);
  metrics.modelCost.inc({ ...model, key: usage.is_byok ? 'tenant' : 'operator' }, usage.llm_cost_usd);
  metrics.modelCalls.inc({ ...model, fallback: page.fallback_position > 0 ? 'true' : 'false' });
}
