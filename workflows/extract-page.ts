// extractPageWorkflow: an extract job as one activity (extractPage: fetch, clean and extract with the page in
// memory), which records job.started, the page's result and job.completed itself. Two workflow tasks and one
// activity per extract, where extractWorkflow (kept for its running workflows and recorded histories) takes
// six tasks and five activities. A job with webhooks records job.started and job.completed here, so each
// webhook is sent after its event is in the log, as before.
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import type { ExtractWorkflowInput, ExtractWorkflowResult } from './extract.js';
import { categoryOf } from './failures.js';
import { JobLog } from './job-events.js';
import { JobWebhooks } from './job-webhooks.js';
import { pageFailed } from './page-job.js';
import { extractPagePolicy } from './policies.js';

const { extractPage } = proxyActivities<Activities>(extractPagePolicy);

/**
 * patched() id of the page store's options (max_age, a stored page): asked only by runs whose input has
 * them, so other runs' histories are unchanged.
 */
const PAGE_STORE_PATCH = 'extract-page-store';

const setStatus = (status: string) =>
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);

export async function extractPageWorkflow(input: ExtractWorkflowInput): Promise<ExtractWorkflowResult> {
  const log = new JobLog(input.jobId, input.tenantId, input.firstSeq);
  const hooks = new JobWebhooks(input.jobId, input.tenantId, input.webhooks);
  const since = Date.now();
  const pageId = uuid4();
  // Every seq is reserved now: job.started, the page's result, and the job's end (completed, failed, cancelled).
  const started = log.reserve();
  const page = log.reserve();
  const end = log.reserve();
  const inActivity = input.webhooks === undefined;
  const fromStore =
    (input.maxAgeMs !== undefined || input.stored !== undefined) && patched(PAGE_STORE_PATCH)
      ? {
          ...(input.maxAgeMs === undefined ? {} : { maxAgeMs: input.maxAgeMs }),
          ...(input.stored ? { stored: input.stored } : {}),
        }
      : {};
  setStatus('running');
  if (!inActivity) {
    await log.record({ slot: started, body: { type: 'job.started', data: {} } });
    await hooks.emit('job.started');
  }
  try {
    const answer = await extractPage({
      jobId: input.jobId,
      tenantId: input.tenantId,
      pageId,
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
      page,
      ...(inActivity ? { started, completed: { ...end, since } } : {}),
    });
    if (!inActivity)
      await log.record({
        slot: end,
        body: { type: 'job.completed', data: { duration_ms: Date.now() - since } },
      });
    setStatus('completed');
    await hooks.emit('job.completed');
    const { provider, model, inputTokens, outputTokens } = answer;
    return { jobId: input.jobId, status: 'completed', provider, model, inputTokens, outputTokens };
  } catch (err) {
    const duration_ms = Date.now() - since;
    // job.started is written again in case the activity never ran (an event already written is kept as it is).
    const startedEvent = { slot: started, body: { type: 'job.started' as const, data: {} } };
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        log.record(
          startedEvent,
          { slot: page, body: pageFailed(input.url, pageId, 'cancelled', 'the job was cancelled') },
          { slot: end, body: { type: 'job.cancelled', data: { duration_ms } } },
        ),
      );
      setStatus('cancelled');
      throw err;
    }
    const { category, message, budget } = categoryOf(err);
    const data = { error_category: category, error_message: message, duration_ms };
    await log.record(
      startedEvent,
      { slot: page, body: pageFailed(input.url, pageId, category, message) },
      { slot: end, body: { type: 'job.failed', data: budget ? { ...data, budget_exhausted: true } : data } },
    );
    setStatus('failed');
    await hooks.emit('job.failed');
    throw ApplicationFailure.nonRetryable(message, category);
  }
}
