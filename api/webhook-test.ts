// A test delivery of a saved webhook: one signed POST of a `webhook.test` event, sent now and only once,
// exactly as the worker sends a job's deliveries (the same headers, signatures, address policy and limits:
// shared/net/webhook-post.ts). It is not recorded and not retried; the attempt's outcome is the answer.
import { randomUUID } from 'node:crypto';
import { postWebhook } from '../shared/net/webhook-post.js';
import { WEBHOOK_TEST_EVENT, type WebhookTestResult } from '../shared/schemas/webhooks.js';
import type { WebhookDoc } from '../shared/store/webhooks.js';
import type { ApiDeps } from './deps.js';

/** The body a receiver gets: the envelope of every delivery, with no job and a small sample `data`. */
export function testDeliveryBody(doc: WebhookDoc, timestamp: string): string {
  return JSON.stringify({
    event: WEBHOOK_TEST_EVENT,
    timestamp,
    job_id: null,
    data: {
      webhook_id: doc._id,
      webhook_name: doc.name,
      message:
        'A test delivery: it belongs to no job. Deliveries of jobs carry the same headers and signatures.',
    },
  });
}

export async function sendTestDelivery(deps: ApiDeps, doc: WebhookDoc): Promise<WebhookTestResult> {
  const id = `dlv_test_${randomUUID().replaceAll('-', '')}`;
  const at = new Date().toISOString();
  const target = {
    url: doc.url,
    secret: deps.webhooks.openSecret(doc),
    headers: deps.webhooks.openHeaders(doc.headers),
  };
  const message = { id, event: WEBHOOK_TEST_EVENT, body: testDeliveryBody(doc, at) };
  const attempt = await postWebhook(target, message, deps.config.ALLOW_PRIVATE_ADDRESSES);
  return {
    webhook_id: doc._id,
    delivery_id: id,
    event_type: WEBHOOK_TEST_EVENT,
    url: doc.url,
    signed: target.secret !== null,
    success: attempt.error_message === null,
    ...attempt,
    at,
  };
}
