// extractPageWorkflow: an extract job as one activity (extractPage: fetch, clean and extract with the page in
// memory), which records job.started, the page's result and job.completed itself (runOneActivityJob). Two
// workflow tasks and one activity per extract, where extractWorkflow (kept for its running workflows and
// recorded histories) takes six tasks and five activities.
import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ExtractWorkflowInput, ExtractWorkflowResult } from './extract.js';
import { runOneActivityJob } from './page-job.js';
import { extractPagePolicy } from './policies.js';

const { extractPage } = proxyActivities<Activities>(extractPagePolicy);

/**
 * patched() id of the page store's options (max_age, a stored page): asked only by runs whose input has
 * them, so other runs' histories are unchanged.
 */
const PAGE_STORE_PATCH = 'extract-page-store';

export async function extractPageWorkflow(input: ExtractWorkflowInput): Promise<ExtractWorkflowResult> {
  // Asked before the job's first command, as it always was.
  const fromStore =
    (input.maxAgeMs !== undefined || input.stored !== undefined) && patched(PAGE_STORE_PATCH)
      ? {
          ...(input.maxAgeMs === undefined ? {} : { maxAgeMs: input.maxAgeMs }),
          ...(input.stored ? { stored: input.stored } : {}),
        }
      : {};
  return runOneActivityJob(input, async (places) => {
    const { provider, model, inputTokens, outputTokens } = await extractPage({
      jobId: input.jobId,
      tenantId: input.tenantId,
      url: input.url,
      fetchMode: input.fetchMode,
      cleanerChain: input.cleanerChain,
      schema: input.schema,
      captureDebug: input.captureDebug,
      llm: input.llm,
      structuredData: input.structuredData,
      ...(input.budget ? { budget: input.budget } : {}),
      ...fromStore,
      ...(input.actions ? { actions: input.actions } : {}),
      ...places,
    });
    return { jobId: input.jobId, status: 'completed' as const, provider, model, inputTokens, outputTokens };
  });
}
