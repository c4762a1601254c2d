// The activities of a monitor's run: create its job as the API creates one (shared/job-create.ts), then
// compare the job's results with the baseline run's and record what changed. Both are idempotent: a retried
// activity finds the job, the run record and the reserved change number it made before.
import {
  copyJobSecrets,
  domainOf,
  hasJobKey,
  mintJobId,
  recordJobCreated,
  type WorkflowInput,
  workflowStart,
} from '../shared/job-create.js';
import type { WebhookPlan } from '../shared/schemas/job-spec.js';
import { readJobSpec } from '../shared/schemas/job-spec.js';
import {
  changeId,
  type MonitorDoc,
  type MonitorOutcome,
  monitorSecretsId,
} from '../shared/store/monitors.js';
import type { JobType, WORKFLOW_TYPES } from '../shared/temporal-names.js';
import type { ActivityDeps } from './deps.js';
import { diffRuns, hasChanges } from './monitor-diff.js';

export interface MonitorRunRef {
  tenantId: string;
  monitorId: string;
}

/** What the run's workflow needs to start the job's workflow: ids and the input (no secrets in it). */
export interface MonitorJob {
  jobId: string;
  workflowId: string;
  workflowType: (typeof WORKFLOW_TYPES)[JobType];
  jobType: JobType;
  url: string;
  domain: string;
  input: WorkflowInput;
  webhooks: WebhookPlan | null;
}

export interface MonitorComparison {
  outcome: MonitorOutcome;
  changeId: string | null;
}

function needs(deps: ActivityDeps) {
  const { jobs, llm, webhooks, monitors } = deps;
  if (!jobs || !llm || !webhooks || !monitors)
    throw new Error('the worker has no job, secret or monitor store');
  return { events: deps.events, jobs, llm, webhooks, monitors };
}

export function makeMonitorActivities(deps: ActivityDeps) {
  /** null when the monitor was deleted after the schedule fired. */
  async function createMonitorJob(ref: MonitorRunRef & { runId: string }): Promise<MonitorJob | null> {
    const stores = needs(deps);
    const monitor = await stores.monitors.get(ref.tenantId, ref.monitorId);
    if (!monitor) return null;
    // One job per run, whatever the retries: its id is derived from the run's workflow id.
    const jobId = mintJobId(ref.tenantId, `monitor-run:${ref.runId}`);
    const spec = readJobSpec(monitor.job.request, monitor.kind);
    const { workflowId, workflowType, input } = workflowStart(spec, { jobId, tenantId: ref.tenantId });
    if (!(await stores.events.get(jobId, 0))) {
      const record = { jobId, workflowId, tenantId: ref.tenantId, idempotencyKey: null, spec };
      await recordJobCreated(stores, { ...record, monitorId: monitor.id });
    }
    // What the request keeps apart, sealed: its model key and webhook destinations (as a retry copies them).
    await copyJobSecrets(stores, monitorSecretsId(ref.tenantId, monitor.id), jobId, hasJobKey(spec));
    await stores.monitors.runStarted(monitor, jobId);
    return {
      jobId,
      workflowId,
      workflowType,
      jobType: spec.kind,
      url: spec.url,
      domain: domainOf(spec.url),
      input,
      webhooks: spec.webhooks ?? null,
    };
  }

  async function compareMonitorRun(ref: MonitorRunRef & { jobId: string }): Promise<MonitorComparison> {
    const stores = needs(deps);
    const monitor = await stores.monitors.get(ref.tenantId, ref.monitorId);
    const run = await stores.monitors.getRun(ref.jobId);
    if (!monitor) return { outcome: 'job_failed', changeId: null };
    if (run && run.outcome !== 'running') {
      return { outcome: run.outcome, changeId: run.change_seq ? changeId(monitor.id, run.change_seq) : null };
    }
    const job = await stores.jobs.get(ref.tenantId, ref.jobId);
    if (job?.status !== 'completed') return ended(monitor, ref.jobId, 'job_failed', null);
    const previous = monitor.baseline_job_id
      ? await stores.jobs.get(ref.tenantId, monitor.baseline_job_id)
      : null;
    if (!previous) return ended(monitor, ref.jobId, 'baseline', null);
    const diff = await diffRuns(
      () => stores.jobs.resultBatches(previous),
      () => stores.jobs.resultBatches(job),
      monitor.key_field,
    );
    if (!hasChanges(diff)) return ended(monitor, ref.jobId, 'unchanged', null);
    const n = await stores.monitors.reserveChange(monitor, ref.jobId);
    await stores.monitors.putChange(
      {
        tenant_id: ref.tenantId,
        monitor_id: monitor.id,
        job_id: ref.jobId,
        previous_job_id: previous.id,
        at: new Date().toISOString(),
        ...diff,
      },
      n,
    );
    return ended(monitor, ref.jobId, 'changed', n);
  }

  async function ended(
    monitor: MonitorDoc,
    jobId: string,
    outcome: MonitorOutcome,
    n: number | null,
  ): Promise<MonitorComparison> {
    await needs(deps).monitors.runEnded(monitor, jobId, outcome, n);
    return { outcome, changeId: n === null ? null : changeId(monitor.id, n) };
  }

  return { createMonitorJob, compareMonitorRun };
}

/** The data of a monitor.changed delivery: the change the run's job recorded. */
export async function monitorChangedData(
  deps: ActivityDeps,
  tenantId: string,
  jobId: string,
): Promise<Record<string, unknown>> {
  const run = await deps.monitors?.getRun(jobId);
  if (!run || run.tenant_id !== tenantId || !run.change_seq) return {};
  const [monitor, change] = await Promise.all([
    deps.monitors?.get(tenantId, run.monitor_id),
    deps.monitors?.getChange(tenantId, run.monitor_id, run.change_seq),
  ]);
  if (!change) return {};
  const { _id, tenant_id, id, monitor_id, job_id, at, ...rest } = change;
  return {
    monitor_id,
    monitor_name: monitor?.name ?? null,
    change_id: id,
    at,
    ...rest,
    changes_url: `/api/v1/monitors/${monitor_id}/changes`,
  };
}
