// Which job a log line or span is about. Workflow-safe (no Node imports): the workflow interceptors use it.

/** Log attributes naming the job; worker and API lines use the same keys. */
export interface JobContext {
  jobId?: string;
  tenantId?: string;
}

/** Header carrying the job context from a workflow to its activities. */
export const JOB_HEADER = 'extract-service-job';

const JOB_ID = /job_[0-9a-f]{32}/;

/** Workflow ids embed the job id (`extract-job_…`, `crawl-job_…`, `webhook-job_…-…`). */
export function jobIdOf(workflowId: string | undefined): string | undefined {
  return workflowId === undefined ? undefined : JOB_ID.exec(workflowId)?.[0];
}

/** `jobId`/`tenantId` of a workflow's or activity's first argument, when it has them. */
export function jobContextOf(value: unknown): JobContext {
  if (value === null || typeof value !== 'object') return {};
  const { jobId, tenantId } = value as Record<string, unknown>;
  return {
    ...(typeof jobId === 'string' ? { jobId } : {}),
    ...(typeof tenantId === 'string' ? { tenantId } : {}),
  };
}
