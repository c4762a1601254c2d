// extractPageWorkflow: an extract job as one local activity (extractPage: fetch, clean and extract with the
// page in memory), which records job.started, the page's result and job.completed itself (runOneActivityJob):
// one workflow task per extract, which ends with the activity's result in a marker (policies.ts says why).
import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ResultView } from '../shared/reducers/results.js';
import type { ExtractWorkflowInput } from '../shared/schemas/job-spec.js';
import { runOneActivityJob } from './page-job.js';
import { extractPagePolicy } from './policies.js';

/** The extract job's spec with its ids (shared/schemas/job-spec.ts). */
export type { ExtractWorkflowInput };

export interface ExtractWorkflowResult {
  jobId: string;
  status: 'completed';
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** The page's result as the API answers it, when small enough to carry (the API reads it otherwise). */
  answer?: ResultView;
}

const { extractPage } = proxyLocalActivities<Activities>(extractPagePolicy);

export async function extractPageWorkflow(input: ExtractWorkflowInput): Promise<ExtractWorkflowResult> {
  return runOneActivityJob(input, async (places) => {
    const { provider, model, inputTokens, outputTokens, answer } = await extractPage({ ...input, ...places });
    const result = {
      jobId: input.jobId,
      status: 'completed' as const,
      provider,
      model,
      inputTokens,
      outputTokens,
    };
    return answer ? { ...result, answer } : result;
  });
}
