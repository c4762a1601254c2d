// extractWorkflow: fetch → clean → extract with a model, one page, recorded as job events. No new job starts
// it (they run extractPageWorkflow, one activity per page); it stays registered for its running workflows and
// recorded histories, and its input and result types are the extract job's.
import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ExtractWorkflowInput } from '../shared/schemas/job-spec.js';
import { runPageJob } from './page-job.js';
import { fetchPolicy, modelPolicy } from './policies.js';

/** The extract job's spec with its ids (shared/schemas/job-spec.ts). */
export type { ExtractWorkflowInput };

export interface ExtractWorkflowResult {
  jobId: string;
  status: 'completed';
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

const { fetchPage, cleanContent } = proxyActivities<Activities>(fetchPolicy);
const { extractWithModel } = proxyActivities<Activities>(modelPolicy);

export async function extractWorkflow(input: ExtractWorkflowInput): Promise<ExtractWorkflowResult> {
  return runPageJob(input, async ({ pageId, slot }) => {
    const fetched = await fetchPage({
      jobId: input.jobId,
      url: input.url,
      fetchMode: input.fetchMode,
      contentId: uuid4(),
    });
    const cleaned = await cleanContent({
      jobId: input.jobId,
      sourceId: fetched.contentId,
      targetId: uuid4(),
      chain: input.cleanerChain,
      readStructured: input.structuredData !== false,
    });
    const answer = await extractWithModel({
      jobId: input.jobId,
      tenantId: input.tenantId,
      pageId,
      contentId: cleaned.contentId,
      url: input.url,
      depth: 0,
      parentUrl: null,
      schema: input.schema,
      fetch: fetched,
      cleanDurationMs: cleaned.durationMs,
      eventSeq: slot.seq,
      eventId: slot.eventId,
      jobType: 'extract',
      captureDebug: input.captureDebug,
      llm: input.llm,
      structuredData: input.structuredData,
      ...(input.budget ? { budget: input.budget } : {}),
    });
    return {
      jobId: input.jobId,
      status: 'completed' as const,
      provider: answer.provider,
      model: answer.model,
      inputTokens: answer.inputTokens,
      outputTokens: answer.outputTokens,
    };
  });
}
