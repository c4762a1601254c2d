// analyzeWorkflow: fetch and parse the page (both fetch modes in auto), at depth 1 classify a few linked pages,
// ask the model for the page type, a summary and a schema, then apply that schema to the page; the analysis
// is recorded as the job's one page result. Orchestration only: content and the analysis stay in the store.
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ErrorCategory } from '../shared/errors.js';
import type { JobEventBody } from '../shared/events.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import type { WebhookPlan } from '../shared/webhooks.js';
import { categoryOf } from './failures.js';
import { JobLog } from './job-events.js';
import { JobWebhooks } from './job-webhooks.js';
import { analyzePolicy, modelPolicy } from './policies.js';

export interface AnalyzeWorkflowInput {
  jobId: string;
  tenantId: string;
  url: string;
  /** 0: the page alone; 1: also a sample of the pages it links to. */
  depth: number;
  fetchMode: 'auto' | 'static' | 'dynamic';
  captureDebug: boolean;
  /** The API recorded job.created as seq 0; the workflow continues from here. */
  firstSeq: number;
  webhooks?: WebhookPlan;
}

export interface AnalyzeWorkflowResult {
  jobId: string;
  status: 'completed';
  pageType: string;
}

const { analyzePage, classifyLinks } = proxyActivities<Activities>(analyzePolicy);
const { suggestAnalysis, recordAnalysis } = proxyActivities<Activities>(modelPolicy);

export async function analyzeWorkflow(input: AnalyzeWorkflowInput): Promise<AnalyzeWorkflowResult> {
  const log = new JobLog(input.jobId, input.tenantId, input.firstSeq);
  const hooks = new JobWebhooks(input.jobId, input.tenantId, input.webhooks);
  const started = Date.now();
  const setStatus = (status: string) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);
  setStatus('running');
  await log.record({ type: 'job.started', data: {} });
  await hooks.emit('job.started');
  const pageId = uuid4();
  // The analysis result (page.completed by recordAnalysis, or page.failed here) owns this seq.
  const pageSlot = log.reserve();
  const job = { jobId: input.jobId, tenantId: input.tenantId, captureDebug: input.captureDebug };
  try {
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
      eventSeq: pageSlot.seq,
      eventId: pageSlot.eventId,
    });
    await log.record({ type: 'job.completed', data: { duration_ms: Date.now() - started } });
    setStatus('completed');
    await hooks.emit('job.completed');
    return { jobId: input.jobId, status: 'completed', pageType: recorded.pageType };
  } catch (err) {
    const duration_ms = Date.now() - started;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        log.record(
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
