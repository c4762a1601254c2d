// extractWorkflow: fetch → clean → extract with a model, one page, recorded as job events. No new job starts
// it (they run extractPageWorkflow, one activity per page); it stays registered for its running workflows and
// recorded histories, and its input and result types are the extract job's.
import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { CleanerStep } from '../activities/clean-content.js';
import type { StoredSource } from '../activities/fetch-page.js';
import type { Activities } from '../activities/index.js';
import type { JobLlmConfig } from '../activities/llm/chain.js';
import type { JobBudget } from '../shared/budget.js';
import type { NormalizedSchema } from '../shared/schema-input.js';
import type { PageAction } from '../shared/schemas/actions.js';
import type { FetchMode } from '../shared/schemas/common.js';
import type { WebhookPlan } from '../shared/webhooks.js';
import { runPageJob } from './page-job.js';
import { fetchPolicy, modelPolicy } from './policies.js';

export interface ExtractWorkflowInput {
  jobId: string;
  tenantId: string;
  url: string;
  fetchMode: FetchMode;
  cleanerChain: CleanerStep[];
  schema: NormalizedSchema;
  captureDebug: boolean;
  /** The request's llm_config without its key (a key given in the request is stored with the job). */
  llm?: JobLlmConfig;
  /** The API recorded job.created as seq 0; the workflow continues from here. */
  firstSeq: number;
  /** The request's structured_data switch (absent in jobs started before it: on). */
  structuredData?: boolean;
  /** Present only when the job has webhook destinations (stored with the job; no URLs or secrets here). */
  webhooks?: WebhookPlan;
  /** The request's max_cost_usd / max_tokens (absent: none). */
  budget?: JobBudget;
  /** The request's max_age in ms: reuse the tenant's page fetched within it (absent: always fetch). */
  maxAgeMs?: number;
  /** Re-extract, or a retry without a fetch: the earlier job's stored page (extractPageWorkflow only). */
  stored?: StoredSource;
  /** The request's page actions (dynamic mode; extractPageWorkflow only). */
  actions?: PageAction[];
}

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
