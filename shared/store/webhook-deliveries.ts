// Webhook delivery records: one document per delivery (`_id` = delivery id), each attempt in its own field,
// and the summary a listing shows, derived from the attempts. Pure: the store reads and writes them.
import type { DeliveryStatus, WebhookEvent } from '../webhooks.js';

export interface DeliveryAttempt {
  attempt_number: number;
  status_code: number | null;
  response_time_ms: number;
  error_message: string | null;
  at: string;
}

/** Where attempt n is recorded: its own field, so recording it never touches another attempt. */
export type AttemptField = `attempt_${number}`;
export const attemptField = (n: number): AttemptField => `attempt_${n}`;

/**
 * A delivery as stored. Its summary (status, attempt_number, status_code, …) is what the first release
 * wrote; reads derive it from the attempts (see deliveryRecord), which are fields `attempt_<n>` (older
 * documents: the `attempts` array).
 */
export interface DeliveryDoc extends Partial<Record<AttemptField, DeliveryAttempt>> {
  _id: string;
  id: string;
  tenant_id: string;
  job_id: string;
  webhook_id: string | null;
  destination: number;
  url: string;
  event_type: WebhookEvent;
  status: DeliveryStatus;
  attempt_number: number;
  max_attempts: number;
  status_code: number | null;
  response_time_ms: number | null;
  created_at: string;
  delivered_at: string | null;
  error_message: string | null;
  /** The exact body bytes every attempt sends. */
  body: string;
  attempts: DeliveryAttempt[];
}

/** A delivery as listed: the summary derived from its attempts, each attempt saying whether it succeeded. */
export type DeliveryRecord = Omit<DeliveryDoc, AttemptField | 'attempts'> & {
  attempts: (DeliveryAttempt & { success: boolean })[];
};

const succeeded = (a: DeliveryAttempt) =>
  a.status_code !== null && a.status_code >= 200 && a.status_code < 300;

/**
 * The delivery with every recorded attempt in order and its summary derived from them: success once any
 * attempt succeeded (a late record of an earlier attempt cannot undo it), failed when the last attempt
 * was the last allowed, retrying in between, pending before the first.
 */
export function deliveryRecord(doc: DeliveryDoc): DeliveryRecord {
  const byNumber = new Map<number, DeliveryAttempt>();
  for (const a of doc.attempts ?? []) byNumber.set(a.attempt_number, a);
  for (let n = 1; n <= Math.max(doc.max_attempts, doc.attempt_number); n++) {
    const a = doc[attemptField(n)];
    if (a) byNumber.set(n, a);
  }
  const attempts = [...byNumber.values()]
    .sort((a, b) => a.attempt_number - b.attempt_number)
    .map((a) => ({ ...a, success: succeeded(a) }));
  const last = attempts.at(-1);
  const delivered = attempts.find((a) => a.success);
  const status: DeliveryStatus = delivered
    ? 'success'
    : !last
      ? 'pending'
      : last.attempt_number >= doc.max_attempts
        ? 'failed'
        : 'retrying';
  return {
    _id: doc._id,
    id: doc.id,
    tenant_id: doc.tenant_id,
    job_id: doc.job_id,
    webhook_id: doc.webhook_id,
    destination: doc.destination,
    url: doc.url,
    event_type: doc.event_type,
    max_attempts: doc.max_attempts,
    created_at: doc.created_at,
    body: doc.body,
    status,
    attempt_number: last?.attempt_number ?? 0,
    status_code: last?.status_code ?? null,
    response_time_ms: last?.response_time_ms ?? null,
    error_message: last?.error_message ?? null,
    delivered_at: delivered
      ? (doc.delivered_at ?? new Date(Date.parse(delivered.at) + delivered.response_time_ms).toISOString())
      : null,
    attempts,
  };
}
