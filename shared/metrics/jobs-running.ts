// Jobs running and crawl frontiers, from Temporal's visibility (the one place that knows across every worker
// and restart) and the jobs' projections, read when Prometheus scrapes and at most every REFRESH_MS: a count
// per job type over the ExtractJobType search attribute every job workflow is started with, and the queued
// URLs (urls_queued) of at most MAX_CRAWLS running crawls, each read by _id.
import type { Client } from '@temporalio/client';
import type { JobReader } from '../store/jobs.js';
import { jobIdOf } from '../telemetry/job-context.js';
import { JOB_TYPES, SEARCH_ATTRIBUTE_KEYS } from '../temporal-names.js';
import { onCollect } from './collect.js';
import type { ServiceMetrics } from './registry.js';

const REFRESH_MS = 10_000;
const READ_TIMEOUT_MS = 3_000;
/** Crawls whose frontier is read per refresh; past it the sums undercount (crawls_read says how many were). */
export const MAX_CRAWLS = 200;

const running = (type: string) => `ExecutionStatus="Running" AND ExtractJobType="${type}"`;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('visibility read timed out')), READ_TIMEOUT_MS).unref(),
  );
  return Promise.race([work, timeout]);
}

async function readFrontiers(metrics: ServiceMetrics, temporal: Client, jobs: JobReader) {
  const reads: Promise<number>[] = [];
  for await (const execution of temporal.workflow.list({ query: running('crawl'), pageSize: MAX_CRAWLS })) {
    const tenant = execution.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.tenant);
    const jobId = jobIdOf(execution.workflowId);
    if (tenant && jobId) reads.push(jobs.get(tenant, jobId).then((job) => job?.urls_queued ?? 0));
    if (reads.length >= MAX_CRAWLS) break;
  }
  const queued = await Promise.all(reads);
  metrics.crawlPagesQueued.set(queued.reduce((a, b) => a + b, 0));
  metrics.crawlFrontierLargest.set(Math.max(0, ...queued));
}

export function readRunningJobs(metrics: ServiceMetrics, temporal: Client, jobs: JobReader): void {
  let readAt = 0;
  let reading: Promise<void> | undefined;
  const read = async () => {
    for (const type of JOB_TYPES) {
      const { count } = await withTimeout(temporal.workflow.count(running(type)));
      metrics.jobsRunning.set({ job_type: type }, count);
    }
    await withTimeout(readFrontiers(metrics, temporal, jobs));
    readAt = Date.now();
  };
  // One read serves every gauge of a scrape; an unreachable Temporal keeps the last values.
  const refresh = async () => {
    if (Date.now() - readAt < REFRESH_MS) return;
    reading ??= read()
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      });
    await reading;
  };
  onCollect(metrics.jobsRunning, refresh);
  onCollect(metrics.crawlPagesQueued, refresh);
  onCollect(metrics.crawlFrontierLargest, refresh);
}
