// The worker's counts that are not an activity's duration: the job events its activities write (job type from
// the running activity's workflow type) and its browser pool, read at scrape time.
import { Context } from '@temporalio/activity';
import type { EventStore } from '../store/event-store.js';
import { JOB_TYPES } from '../temporal-names.js';
import { onCollect } from './collect.js';
import { jobEventCounter } from './job-events.js';
import type { ServiceMetrics } from './registry.js';

/** Job workflow ids are `<job type>-<job id>` (workflowIdForJob), whatever the workflow's type or version. */
const JOB_WORKFLOW_ID = new RegExp(`^(${JOB_TYPES.join('|')})-job_`);

/** The job type of the workflow whose activity is writing, when the write happens inside one. */
function activityJobType(): string | undefined {
  try {
    return JOB_WORKFLOW_ID.exec(Context.current().info.workflowExecution?.workflowId ?? '')?.[1];
  } catch {
    return undefined; // not in an activity (a sweep, a test writing events directly)
  }
}

export interface BrowserStats {
  stats(): { activePages: number; idlePages: number; waiting: number };
}

/** Starts counting; returns the function that stops it. */
export function countWorker(
  metrics: ServiceMetrics,
  events: EventStore,
  browser: BrowserStats | undefined,
): () => void {
  onCollect(metrics.browserPagesInUse, () => {
    metrics.browserPagesInUse.set(browser?.stats().activePages ?? 0);
  });
  onCollect(metrics.browserPagesKept, () => {
    metrics.browserPagesKept.set(browser?.stats().idlePages ?? 0);
  });
  onCollect(metrics.browserPagesWaiting, () => {
    metrics.browserPagesWaiting.set(browser?.stats().waiting ?? 0);
  });
  return events.onWritten(jobEventCounter(metrics, activityJobType));
}
