// Jobs running, from Temporal's visibility (the one place that knows across every worker and restart), read
// when Prometheus scrapes and at most every REFRESH_MS: a count per job type over the ExtractJobType search
// attribute, which every job workflow is started with.
import type { Client } from '@temporalio/client';
import { JOB_TYPES } from '../temporal-names.js';
import { onCollect } from './collect.js';
import type { ServiceMetrics } from './registry.js';

const REFRESH_MS = 10_000;
const COUNT_TIMEOUT_MS = 2_000;

export function countRunningJobs(metrics: ServiceMetrics, temporal: Client): void {
  let readAt = 0;
  let reading: Promise<void> | undefined;
  const read = async () => {
    for (const type of JOB_TYPES) {
      const query = `ExecutionStatus="Running" AND ExtractJobType="${type}"`;
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('count timed out')), COUNT_TIMEOUT_MS).unref(),
      );
      const { count } = await Promise.race([temporal.workflow.count(query), timeout]);
      metrics.jobsRunning.set({ job_type: type }, count);
    }
    readAt = Date.now();
  };
  // An unreachable Temporal keeps the last values; the scrape goes on.
  onCollect(metrics.jobsRunning, async () => {
    if (Date.now() - readAt < REFRESH_MS) return;
    reading ??= read()
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      });
    await reading;
  });
}
