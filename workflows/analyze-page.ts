// analyzePageWorkflow: an analyze job as one activity (analyzeJob: fetch, depth-1 links, the model and the
// analysis's record), which records job.started, the analysis and job.completed itself (runOneActivityJob).
// Two workflow tasks and one activity per analysis.
import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { AnalyzeWorkflowInput } from '../shared/schemas/job-spec.js';
import { runOneActivityJob } from './page-job.js';
import { analyzeJobPolicy } from './policies.js';

/** The analyze job's spec with its ids (shared/schemas/job-spec.ts). */
export type { AnalyzeWorkflowInput };

export interface AnalyzeWorkflowResult {
  jobId: string;
  status: 'completed';
  pageType: string;
}

const { analyzeJob } = proxyActivities<Activities>(analyzeJobPolicy);

export async function analyzePageWorkflow(input: AnalyzeWorkflowInput): Promise<AnalyzeWorkflowResult> {
  return runOneActivityJob(input, async (places) => {
    const { pageType } = await analyzeJob({
      jobId: input.jobId,
      tenantId: input.tenantId,
      url: input.url,
      depth: input.depth,
      fetchMode: input.fetchMode,
      captureDebug: input.captureDebug,
      contentId: uuid4(),
      ...places,
    });
    return { jobId: input.jobId, status: 'completed' as const, pageType };
  });
}
