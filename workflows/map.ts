// mapWorkflow: lists a site's URLs (sitemaps and a shallow link walk) as the job's one page result, through
// one activity that records the list itself. Orchestration only: the URL list stays in the store.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { MapWorkflowInput } from '../shared/schemas/job-spec.js';
import { runPageJob } from './page-job.js';
import { mapPolicy } from './policies.js';

/** The map job's spec with its ids (shared/schemas/job-spec.ts). */
export type { MapWorkflowInput };

export interface MapWorkflowResult {
  jobId: string;
  status: 'completed';
  urlCount: number;
}

const { mapSite } = proxyActivities<Activities>(mapPolicy);

export async function mapWorkflow(input: MapWorkflowInput): Promise<MapWorkflowResult> {
  return runPageJob(input, async ({ pageId, slot }) => {
    const found = await mapSite({
      jobId: input.jobId,
      tenantId: input.tenantId,
      pageId,
      url: input.url,
      limit: input.limit,
      includeSubdomains: input.includeSubdomains,
      search: input.search,
      useSitemap: input.useSitemap,
      ignoreQuery: input.ignoreQuery,
      respectRobots: input.respectRobots,
      eventSeq: slot.seq,
      eventId: slot.eventId,
    });
    return { jobId: input.jobId, status: 'completed' as const, urlCount: found.urlCount };
  });
}
