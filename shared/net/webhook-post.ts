// One signed webhook POST: the headers every delivery carries (custom ones, the service's framing, the
// signatures), sent through the guarded dispatcher with the delivery limits, and its outcome. Used by the
// worker's deliveries and by the API's test delivery of a saved webhook, so both send exactly the same way.
import { createHmac } from 'node:crypto';
import { CategorizedError } from '../errors.js';
import type { WebhookHeader } from '../store/webhooks.js';
import { reservedHeaderReason } from '../webhooks.js';
import { guardedFetch } from './guarded-fetch.js';

/** A receiver has this long to answer (2xx within it is success). */
export const WEBHOOK_TIMEOUT_MS = 30_000;
/** The receiver's answer is not needed; read at most this much of it. */
const MAX_RESPONSE_BYTES = 4096;

/** Where a delivery goes: secret and header values in clear (opened from their sealed form). */
export interface WebhookTarget {
  url: string;
  secret: string | null;
  headers: WebhookHeader[];
}

/** What is sent: the delivery id (X-Service-Delivery, webhook-id), the event name and the exact body. */
export interface WebhookMessage {
  id: string;
  event: string;
  body: string;
}

export interface WebhookAttempt {
  status_code: number | null;
  response_time_ms: number;
  error_message: string | null;
}

/**
 * Signing headers. X-Service-Signature: lowercase hex HMAC-SHA256 of the body keyed by the secret's UTF-8
 * bytes. Standard Webhooks: base64 HMAC-SHA256 of "id.timestamp.body" keyed by the secret's bytes — the
 * UTF-8 bytes, or for a "whsec_<base64>" secret the decoded bytes, as the standardwebhooks library does.
 */
export function signatureHeaders(secret: string, id: string, body: string, unixSeconds: number) {
  const key = secret.startsWith('whsec_')
    ? Buffer.from(secret.slice(6), 'base64')
    : Buffer.from(secret, 'utf8');
  const signed = createHmac('sha256', key).update(`${id}.${unixSeconds}.${body}`).digest('base64');
  return {
    'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'),
    'webhook-id': id,
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': `v1,${signed}`,
  };
}

function deliveryHeaders(target: WebhookTarget, message: WebhookMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  // A reserved name stored before such names were refused would fail every attempt: it is left out.
  for (const h of target.headers) if (!reservedHeaderReason(h.name)) headers[h.name] = h.value;
  return Object.assign(headers, {
    'content-type': 'application/json',
    'x-service-event': message.event,
    'x-service-delivery': message.id,
    ...(target.secret
      ? signatureHeaders(target.secret, message.id, message.body, Math.floor(Date.now() / 1000))
      : {}),
  });
}

const answered = (status: number, ms: number): WebhookAttempt => ({
  status_code: status,
  response_time_ms: ms,
  error_message: status >= 200 && status < 300 ? null : `the receiver answered HTTP ${status}`,
});

/**
 * Sends one attempt: no redirect followed, the address checked where the connection is made (private
 * addresses only when `allowPrivate`), WEBHOOK_TIMEOUT_MS in all. Never throws: a refused address, a
 * timeout or a receiver's error is the attempt's error_message.
 */
export async function postWebhook(
  target: WebhookTarget,
  message: WebhookMessage,
  allowPrivate: boolean,
): Promise<WebhookAttempt> {
  const started = performance.now();
  let statusCode: number | null = null;
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await guardedFetch({
      url: target.url,
      method: 'POST',
      headers: deliveryHeaders(target, message),
      body: message.body,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      maxBytes: MAX_RESPONSE_BYTES,
      maxRedirects: 0,
      policy: { allowPrivate },
      inspectResponse: (status) => {
        statusCode = status;
      },
      propagateTrace: true,
    });
    return answered(res.status, elapsed());
  } catch (err) {
    // A larger answer than we read is still an answer: its status decides.
    if (statusCode !== null && err instanceof CategorizedError && err.category === 'content_too_large') {
      return answered(statusCode, elapsed());
    }
    return { status_code: null, response_time_ms: elapsed(), error_message: (err as Error).message };
  }
}
