// analyzePageWorkflow: an analyze job as one activity (analyzeJob: fetch, depth-1 links, the model and the
// analysis's record), which records job.started, the analysis and job.completed itself. Two workflow tasks
// and one activity per analysis, where analyzeWorkflow (kept for its running workflows and recorded
// histories) takes eight tasks and six activities. A job with webhooks records job.started and
// job.completed here, so each webhook is sent after its event is in the log, as before.
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import type { AnalyzeWorkflowInput, AnalyzeWorkflowResult } from './analyze.js';
import { categoryOf } from './failures.js';
import { JobLog } from './job-events.js';
import { JobWebhooks } from './job-webhooks.js';
import { pageFailed } from './page-job.js';
import { analyzeJobPolicy } from './policies.js';

const { analyzeJob } = proxyActivities<Activities>(analyzeJobPolicy);

const setStatus = (status: string) =>
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);

export async function analyzePageWorkflow(input: AnalyzeWorkflowInput): Promise<AnalyzeWorkflowResult> {
  const log = new JobLog(input.jobId, input.tenantId, input.firstSeq);
  const hooks = new JobWebhooks(input.jobId, input.tenantId, input.webhooks);
  const since = Date.now();
  const pageId = uuid4();
  // Every seq is reserved now, as analyzeWorkflow uses them: job.started, the analysis, the job's end.
  const started = log.reserve();
  const page = log.reserve();
  const end = log.reserve();
  const inActivity = input.webhooks === undefined;
  setStatus('running');
  if (!inActivity) {
    await log.record({ slot: started, body: { type: 'job.started', data: {} } });
    await hooks.emit('job.started');
  }
  try {
    const { pageType } = await analyzeJob({
      jobId: input.jobId,
      tenantId: input.tenantId,
      pageId,
      url: input.url,
      depth: input.depth,
      fetchMode: input.fetchMode,
      captureDebug: input.captureDebug,
      contentId: uuid4(),
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
    return { jobId: input.jobId, status: 'completed', pageType };
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
