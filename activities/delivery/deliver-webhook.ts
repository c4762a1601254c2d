// deliverWebhook: one attempt of one delivery. The first attempt builds the body from the job's projection
// and stores it, so every attempt sends the same bytes; each attempt is recorded. Receiver failures are
// answered as 'failed' (the delivery workflow schedules the next attempt), never thrown. A delivery already
// recorded as delivered is not sent again (an attempt whose completion was lost, e.g. its worker killed after
// the record), and an attempt's record waits out a database restart rather than failing the attempt after
// the receiver got it (the next attempt would send the same delivery id again).
import { postWebhook } from '../../shared/net/webhook-post.js';
import type { ResultView } from '../../shared/reducers/results.js';
import { isDatabaseUnavailable } from '../../shared/store/mongo.js';
import { type DeliveryDoc, deliveryRecord } from '../../shared/store/webhook-deliveries.js';
import type { Destination } from '../../shared/store/webhooks.js';
import type { WebhookEvent } from '../../shared/webhooks.js';
import type { StoreDeps } from '../common/deps.js';
import { monitorChangedData } from './monitor-run.js';

export type DeliverOutcome = 'success' | 'failed' | 'no_destination';

export interface DeliverWebhookInput {
  deliveryId: string;
  jobId: string;
  tenantId: string;
  event: WebhookEvent;
  destination: number;
  timestamp: string;
  attempt: number;
  maxAttempts: number;
}

export function makeDeliverWebhook(deps: StoreDeps) {
  return async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliverOutcome> {
    const store = deps.webhooks;
    if (!store) throw new Error('the worker has no webhook store');
    const destination = await store.jobDestination(input.jobId, input.destination);
    if (!destination) return 'no_destination'; // e.g. a retried job that copied the plan but not the destinations
    const existing = await store.getDelivery(input.deliveryId);
    if (existing && deliveryRecord(existing).status === 'success') return 'success';
    const delivery = existing ?? (await store.createDelivery(await newDelivery(deps, input, destination)));
    const at = new Date().toISOString();
    const result = await post(deps, delivery, destination);
    const ok = result.status_code !== null && result.status_code >= 200 && result.status_code < 300;
    // The delivery's status is derived from its attempts when read (deliveryRecord).
    await whileDatabaseUnavailable(() =>
      store.recordAttempt(delivery._id, { attempt_number: input.attempt, ...result, at }),
    );
    return ok ? 'success' : 'failed';
  };
}

/** How long an attempt's record waits for the database to come back (within the activity's 90 s). */
const RECORD_WAIT_MS = 60_000;

/** Runs `write`, again every few seconds while the database is out of reach, up to RECORD_WAIT_MS. */
async function whileDatabaseUnavailable(write: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  for (let wait = 500; ; wait = Math.min(wait * 2, 5_000)) {
    try {
      return await write();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() + wait > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

async function newDelivery(
  deps: StoreDeps,
  input: DeliverWebhookInput,
  destination: Destination,
): Promise<DeliveryDoc> {
  const data = await eventData(deps, input);
  const body = JSON.stringify({ event: input.event, timestamp: input.timestamp, job_id: input.jobId, data });
  return {
    _id: input.deliveryId,
    id: input.deliveryId,
    tenant_id: input.tenantId,
    job_id: input.jobId,
    webhook_id: destination.webhook_id,
    destination: input.destination,
    url: destination.url,
    event_type: input.event,
    status: 'pending',
    attempt_number: 0,
    max_attempts: input.maxAttempts,
    status_code: null,
    response_time_ms: null,
    created_at: new Date().toISOString(),
    delivered_at: null,
    error_message: null,
    body,
    attempts: [],
  };
}

/** The `data` of each event, read from the job's projection. */
async function eventData(deps: StoreDeps, input: DeliverWebhookInput): Promise<Record<string, unknown>> {
  const job = await deps.jobs?.get(input.tenantId, input.jobId);
  if (!job) return {};
  switch (input.event) {
    case 'job.started':
      return { job_type: job.type, url: job.url, status: 'running' };
    case 'job.progress':
      return {
        job_type: job.type,
        status: 'running',
        page_count: job.page_count,
        urls_queued: job.urls_queued,
        failed_count: job.failed_count,
        cost_usd: job.cost_usd,
      };
    case 'job.failed':
      return {
        job_type: job.type,
        status: 'failed',
        error_category: job.error_category,
        error_message: job.error_message,
        budget_exhausted: job.budget_exhausted ?? false,
      };
    case 'monitor.changed':
      return monitorChangedData(deps, input.tenantId, input.jobId);
    case 'job.completed': {
      const bounded = deps.jobs
        ? await boundedResults(deps.jobs.resultBatches(job))
        : await boundedResults([]);
      return {
        job_type: job.type,
        status: job.status,
        page_count: job.page_count,
        cost_usd: job.cost_usd,
        budget_exhausted: job.budget_exhausted ?? false,
        ...bounded,
        results_url: `/api/v1/jobs/${job.id}/results`,
      };
    }
  }
}

/** A job.completed body carries at most this much result JSON; a larger crawl's body says it was cut. */
export const WEBHOOK_RESULTS_MAX_BYTES = 1_000_000;

/**
 * The page results for a job.completed body, in order, as many as fit in WEBHOOK_RESULTS_MAX_BYTES: a
 * 10,000-page crawl must not make a body receivers refuse. When some are left out, `results_truncated`
 * is true and `results_total` counts them all; the whole set is at `results_url`. Read a batch at a time:
 * past the bound the rest are only counted, never held.
 */
export async function boundedResults(
  batches: AsyncIterable<readonly ResultView[]> | Iterable<readonly ResultView[]>,
) {
  const out: Record<string, unknown>[] = [];
  let bytes = 0;
  let total = 0;
  let cut = false;
  for await (const batch of batches) {
    for (const r of batch) {
      total++;
      if (cut) continue;
      const item = {
        id: r.id,
        url: r.url,
        status: r.status,
        data: r.data,
        ...(r.error_category ? { error_category: r.error_category, error_message: r.error_message } : {}),
      };
      bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
      if (bytes > WEBHOOK_RESULTS_MAX_BYTES) cut = true;
      else out.push(item);
    }
  }
  return { results: out, results_truncated: cut, results_total: total };
}

/** One attempt through the POST the API's test delivery also uses (same headers, signatures and limits). */
function post(deps: StoreDeps, delivery: DeliveryDoc, destination: Destination) {
  const message = { id: delivery.id, event: delivery.event_type, body: delivery.body };
  return postWebhook(destination, message, deps.config.ALLOW_PRIVATE_ADDRESSES);
}
