// monitorRunWorkflow: one run of a monitor, started by its Temporal Schedule (or a trigger). It creates the run's
// job (an ordinary job, listed with the others), runs the job's workflow as a child, compares the results with
// the baseline run's and, only when something changed, sends monitor.changed to the job's webhooks. Its input
// is two ids: the request, its secrets and the results stay in the database.
import {
  CancellationScope,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { MonitorComparison } from '../activities/delivery/monitor-run.js';
import type { Activities } from '../activities/index.js';
import { SEARCH_ATTRIBUTE_KEYS, WORKFLOW_TASK_TIMEOUTS } from '../shared/temporal-names.js';
import { JobWebhooks } from './job-webhooks.js';
import { recordPolicy } from './policies.js';

export interface MonitorRunInput {
  tenantId: string;
  monitorId: string;
}

export interface MonitorRunResult {
  jobId: string | null;
  outcome: MonitorComparison['outcome'] | 'monitor_deleted';
  changeId: string | null;
}

const { createMonitorJob, compareMonitorRun } = proxyActivities<Activities>({
  ...recordPolicy,
  startToCloseTimeout: '2m',
});

export async function monitorRunWorkflow(input: MonitorRunInput): Promise<MonitorRunResult> {
  // A schedule names its runs by the second they start: two triggers within one second give the same
  // workflow id to two runs, so the run id tells them apart.
  const { workflowId, runId } = workflowInfo();
  const run = await createMonitorJob({ ...input, runId: `${workflowId}/${runId}` });
  if (!run) return { jobId: null, outcome: 'monitor_deleted', changeId: null };
  const taskTimeout = WORKFLOW_TASK_TIMEOUTS[run.jobType];
  try {
    await executeChild(run.workflowType, {
      workflowId: run.workflowId,
      args: [run.input],
      // Cancelling or terminating the run cancels its job, which then ends cancelled as any job does.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      ...(taskTimeout ? { workflowTaskTimeout: taskTimeout } : {}),
      memo: { url: run.url, tenant: input.tenantId, monitor: input.monitorId },
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTE_KEYS.tenant, value: input.tenantId },
        { key: SEARCH_ATTRIBUTE_KEYS.jobType, value: run.jobType },
        { key: SEARCH_ATTRIBUTE_KEYS.domain, value: run.domain },
        { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'pending' },
      ],
    });
  } catch (err) {
    // The job recorded its own failure or cancellation; the comparison sees it. Only the run's own
    // cancellation stops here.
    if (CancellationScope.current().consideredCancelled) throw err;
  }
  const compared = await compareMonitorRun({ ...input, jobId: run.jobId });
  if (compared.outcome === 'changed' && run.webhooks) {
    await new JobWebhooks(run.jobId, input.tenantId, run.webhooks).emit('monitor.changed');
  }
  return { jobId: run.jobId, ...compared };
}
