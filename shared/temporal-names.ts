// Temporal names shared by the API, the worker and the workflows. Only @temporalio/common (workflow-safe).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** The workflow type each new job of a type starts. */
export const WORKFLOW_TYPES = {
  extract: 'extractPageWorkflow',
  crawl: 'crawlWorkflow',
  analyze: 'analyzePageWorkflow',
  map: 'mapWorkflow',
} as const;

/**
 * A job type's workflow task timeout, where Temporal's 10 s does not suit it. An extract's page runs as a local
 * activity inside its workflow's task (workflows/policies.ts), which the worker keeps open by completing it
 * every 0.8 × this while the page runs; a cancel request reaches the workflow only with its next task, so
 * it reaches the page within that time (a queued activity learns of it at its next heartbeat, every 1–4 s).
 * Shorter would cost history events on a slow page and, on a stalled worker, a task run twice.
 */
export const WORKFLOW_TASK_TIMEOUTS: Partial<Record<keyof typeof WORKFLOW_TYPES, string>> = { extract: '3s' };

/** Query of a running crawl: the crawl-map nodes whose page is being processed now (status `crawling`). */
export const CRAWL_IN_FLIGHT_QUERY = 'crawlInFlight';

export const JOB_TYPES = ['extract', 'crawl', 'analyze', 'map'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** Workflow ids are derived from job ids so an operator can go from one to the other. */
/** The workflow a monitor's Temporal Schedule starts for each run (it creates the run's job and compares). */
export const MONITOR_RUN_WORKFLOW = 'monitorRunWorkflow';

/** A monitor's Temporal Schedule id, derived from its tenant and id (the Temporal UI lists it). */
export function scheduleIdForMonitor(tenantId: string, monitorId: string): string {
  return `monitor-${tenantId}-${monitorId}`;
}

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

/** Typed keys for the search attributes above (for typedSearchAttributes when starting workflows). */
export const SEARCH_ATTRIBUTE_KEYS = {
  tenant: defineSearchAttributeKey(SEARCH_ATTRIBUTES.tenant, SearchAttributeType.KEYWORD),
  jobType: defineSearchAttributeKey(SEARCH_ATTRIBUTES.jobType, SearchAttributeType.KEYWORD),
  domain: defineSearchAttributeKey(SEARCH_ATTRIBUTES.domain, SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTES.status, SearchAttributeType.KEYWORD),
} as const;
