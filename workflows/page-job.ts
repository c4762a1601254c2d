// The frame of a one-page job (extract, analyze): job.started, one reserved seq for the page's result, then
// job.completed, or the page's failure in that seq and job.failed / job.cancelled, with search attributes
// and webhooks along the way. The job's own steps run inside.
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { ErrorCategory } from '../shared/errors.js';
import type { JobEventBody } from '../shared/events.js';
import type { WebhookPlan } from '../shared/schemas/job-spec.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import { categoryOf } from './failures.js';
import { JobLog, type Slot } from './job-events.js';
import { JobWebhooks } from './job-webhooks.js';

export interface PageJobInput {
  jobId: string;
  tenantId: string;
  url: string;
  /** The API recorded job.created as seq 0; the workflow continues from here. */
  firstSeq: number;
  webhooks?: WebhookPlan;
}

/** What the job's steps get: the page's id and the seq its result event (page.completed) must use. */
export interface PageTurn {
  pageId: string;
  slot: Slot;
}

export async function runPageJob<T>(input: PageJobInput, steps: (page: PageTurn) => Promise<T>): Promise<T> {
  const log = new JobLog(input.jobId, input.tenantId, input.firstSeq);
  const hooks = new JobWebhooks(input.jobId, input.tenantId, input.webhooks);
  const started = Date.now();
  const setStatus = (status: string) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);
  setStatus('running');
  await log.record({ type: 'job.started', data: {} });
  await hooks.emit('job.started');
  const pageId = uuid4();
  // The page's result event (page.completed by an activity, or page.failed here) owns this seq.
  const slot = log.reserve();
  try {
    const result = await steps({ pageId, slot });
    await log.record({ type: 'job.completed', data: { duration_ms: Date.now() - started } });
    setStatus('completed');
    await hooks.emit('job.completed');
    return result;
  } catch (err) {
    const duration_ms = Date.now() - started;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        log.record(
          // Fills the page's seq unless an activity already wrote its result there.
          { slot, body: pageFailed(input.url, pageId, 'cancelled', 'the job was cancelled') },
          { type: 'job.cancelled', data: { duration_ms } },
        ),
      );
      setStatus('cancelled');
      throw err;
    }
    const { category, message, budget } = categoryOf(err);
    const data = { error_category: category, error_message: message, duration_ms };
    await log.record(
      { slot, body: pageFailed(input.url, pageId, category, message) },
      { type: 'job.failed', data: budget ? { ...data, budget_exhausted: true } : data },
    );
    setStatus('failed');
    await hooks.emit('job.failed');
    throw ApplicationFailure.nonRetryable(message, category);
  }
}

/** Where a one-activity job's activity records its events (see runOneActivityJob). */
export interface OneActivityPlaces {
  pageId: string;
  /** The page's result (page.completed); a failure is recorded there by the workflow. */
  page: Slot;
  /** job.started, recorded by the activity before it fetches (absent: the workflow recorded it). */
  started?: Slot;
  /** job.completed, recorded with the page's result (absent: the workflow records it), timed from `since`. */
  completed?: Slot & { since: number };
}

/**
 * The frame of a one-page job run as one activity (extractPageWorkflow, analyzePageWorkflow): every seq
 * reserved at once — job.started, the page's result, the job's end — and the activity records them itself,
 * unless the job has webhooks: then job.started and job.completed are recorded here, so each webhook is sent
 * after its event is in the log. A failure or cancellation is recorded here in the same seqs (an event the
 * activity already wrote is kept as it is).
 */
export async function runOneActivityJob<T>(
  input: PageJobInput,
  run: (places: OneActivityPlaces) => Promise<T>,
): Promise<T> {
  const log = new JobLog(input.jobId, input.tenantId, input.firstSeq);
  const hooks = new JobWebhooks(input.jobId, input.tenantId, input.webhooks);
  const since = Date.now();
  const pageId = uuid4();
  const started = log.reserve();
  const page = log.reserve();
  const end = log.reserve();
  const inActivity = input.webhooks === undefined;
  const setStatus = (status: string) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);
  setStatus('running');
  if (!inActivity) {
    await log.record({ slot: started, body: { type: 'job.started', data: {} } });
    await hooks.emit('job.started');
  }
  try {
    const result = await run({
      pageId,
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
    return result;
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

export function pageFailed(
  url: string,
  pageId: string,
  category: ErrorCategory,
  message: string,
): JobEventBody {
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
