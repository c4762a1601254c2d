// Temporal names shared by the API, the worker and the workflows. No driver imports here.
export const WORKFLOW_TYPES = { extract: 'extractWorkflow' } as const;

export const JOB_TYPES = ['extract', 'crawl', 'analyze'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** Workflow ids are derived from job ids so an operator can go from one to the other. */
export function workflowIdForJob(jobType: JobType, jobId: string): string {
  return `${jobType}-${jobId}`;
}

/** Custom search attributes registered at start-up and set by the workflows. */
export const SEARCH_ATTRIBUTES = {
  tenant: 'ExtractTenant',
  jobType: 'ExtractJobType',
  domain: 'ExtractDomain',
  status: 'ExtractJobStatus',
} as const;
