// extractWorkflow: fetch → clean → extract with a model, one page, recorded as job events.
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { CleanerStep } from '../activities/clean-content.js';
import type { Activities } from '../activities/index.js';
import type { JobLlmConfig } from '../activities/llm/chain.js';
import type { ErrorCategory } from '../shared/errors.js';
import type { JobEventBody } from '../shared/events.js';
import type { NormalizedSchema } from '../shared/schema-input.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import type { WebhookPlan } from '../shared/webhooks.js';
import { categoryOf } from './failures.js';
import { JobLog } from './job-events.js';
import { JobWebhooks } from './job-webhooks.js';
import { fetchPolicy, modelPolicy } from './policies.js';

export interface ExtractWorkflowInput {
  jobId: string;
  tenantId: string;
  url: string;
  fetchMode: 'auto' | 'static' | 'dynamic';
  cleanerChain: CleanerStep[];
  schema: NormalizedSchema;
  captureDebug: boolean;
  /** The request's llm_config without its key (a key given in the request is stored with the job). */
  llm?: JobLlmConfig;
  /** The API recorded job.created as seq 0; the workflow continues from here. */
  firstSeq: number;
  /** Present only when the job has webhook destinations (stored with the job; no URLs or secrets here). */
  webhooks?: WebhookPlan;
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
  const log = new JobLog(input.jobId, input.tenantId, input.firstSeq);
  const hooks = new JobWebhooks(input.jobId, input.tenantId, input.webhooks);
  const started = Date.now();
  const setStatus = (status: string) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);
  setStatus('running');
  await log.record({ type: 'job.started', data: {} });
  await hooks.emit('job.started');
  const pageId = uuid4();
  // The page's result event (page.completed by the model activity, or page.failed here) owns this seq.
  const pageSlot = log.reserve();
  try {
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
      eventSeq: pageSlot.seq,
      eventId: pageSlot.eventId,
      jobType: 'extract',
      captureDebug: input.captureDebug,
      llm: input.llm,
    });
    await log.record({ type: 'job.completed', data: { duration_ms: Date.now() - started } });
    setStatus('completed');
    await hooks.emit('job.completed');
    return {
      jobId: input.jobId,
      status: 'completed',
      provider: answer.provider,
      model: answer.model,
      inputTokens: answer.inputTokens,
      outputTokens: answer.outputTokens,
    };
  } catch (err) {
    const duration_ms = Date.now() - started;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        log.record(
          // Fills the page's seq unless the model activity already wrote its result there.
          { slot: pageSlot, body: pageFailed(input.url, pageId, 'cancelled', 'the job was cancelled') },
          { type: 'job.cancelled', data: { duration_ms } },
        ),
      );
      setStatus('cancelled');
      throw err;
    }
    const { category, message } = categoryOf(err);
    await log.record(
      { slot: pageSlot, body: pageFailed(input.url, pageId, category, message) },
      { type: 'job.failed', data: { error_category: category, error_message: message, duration_ms } },
    );
    setStatus('failed');
    await hooks.emit('job.failed');
    throw ApplicationFailure.nonRetryable(message, category);
  }
}

function pageFailed(url: string, pageId: string, category: ErrorCategory, message: string): JobEventBody {
  return {
    type: 'page.failed',
    data: {
      page_id: pageId,
      url,
      depth: 0,
      parent_url: null,
      error_category: category,
      error_message: message,
    },
  };
}
