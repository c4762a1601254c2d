// analyzeWorkflow: fetch and parse the page (both fetch modes in auto), at depth 1 classify a few linked pages,
// ask the model for the page type, a summary and a schema, then apply that schema to the page; the analysis
// is recorded as the job's one page result. Orchestration only: content and the analysis stay in the store.
import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { AnalyzeWorkflowInput } from '../shared/schemas/job-spec.js';
import { runPageJob } from './page-job.js';
import { analyzePolicy, modelPolicy } from './policies.js';

/** The analyze job's spec with its ids (shared/schemas/job-spec.ts). */
export type { AnalyzeWorkflowInput };

export interface AnalyzeWorkflowResult {
  jobId: string;
  status: 'completed';
  pageType: string;
}

const { analyzePage, classifyLinks } = proxyActivities<Activities>(analyzePolicy);
const { suggestAnalysis, recordAnalysis } = proxyActivities<Activities>(modelPolicy);

export async function analyzeWorkflow(input: AnalyzeWorkflowInput): Promise<AnalyzeWorkflowResult> {
  const job = { jobId: input.jobId, tenantId: input.tenantId, captureDebug: input.captureDebug };
  return runPageJob(input, async ({ pageId, slot }) => {
    const page = await analyzePage({
      jobId: input.jobId,
      url: input.url,
      fetchMode: input.fetchMode,
      contentId: uuid4(),
    });
    const samples = input.depth >= 1 ? page.linkSamples : [];
    const classes =
      samples.length > 0
        ? await classifyLinks({
            jobId: input.jobId,
            fetchMode: page.recommended.mode,
            samples,
            contentId: uuid4(),
          })
        : [];
    const suggestion = await suggestAnalysis({
      ...job,
      pageId,
      url: input.url,
      evidenceId: page.evidenceId,
      fetch: page.fetch,
      structure: page.structure,
    });
    const recorded = await recordAnalysis({
      ...job,
      pageId,
      url: input.url,
      cleanedId: page.cleanedId,
      fetch: page.fetch,
      cleanDurationMs: page.cleanDurationMs,
      structure: page.structure,
      recommendedFetchMode: page.recommended.mode,
      suggestion,
      classes,
      eventSeq: slot.seq,
      eventId: slot.eventId,
    });
    return { jobId: input.jobId, status: 'completed' as const, pageType: recorded.pageType };
  });
}
