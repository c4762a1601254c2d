// mapWorkflow: lists a site's URLs (sitemaps and a shallow link walk) as the job's one page result, through
// one activity that records the list itself. Orchestration only: the URL list stays in the store.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { WebhookPlan } from '../shared/webhooks.js';
import { runPageJob } from './page-job.js';
import { mapPolicy } from './policies.js';

export interface MapWorkflowInput {
  jobId: string;
  tenantId: string;
  url: string;
  limit: number;
  includeSubdomains: boolean;
  search: string | null;
  useSitemap: boolean;
  ignoreQuery: boolean;
  respectRobots: boolean;
  /** The API recorded job.created as seq 0; the workflow continues from here. */
  firstSeq: number;
  webhooks?: WebhookPlan;
}

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
