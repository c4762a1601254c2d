// webhookDeliveryWorkflow: one event to one destination, up to 1 + retryDelaysMs.length attempts. The waits
// are durable timers, so a worker or server restart during a wait loses nothing and sends nothing twice.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { DeliverOutcome } from '../activities/delivery/deliver-webhook.js';
import type { Activities } from '../activities/index.js';
import type { WebhookEvent } from '../shared/webhooks.js';
import { webhookPolicy } from './policies.js';

export interface WebhookDeliveryInput {
  /** X-Service-Delivery: the same on every attempt. */
  deliveryId: string;
  jobId: string;
  tenantId: string;
  event: WebhookEvent;
  /** Index into the job's stored destinations. */
  destination: number;
  /** When the job emitted the event. */
  timestamp: string;
  retryDelaysMs: number[];
}

export interface WebhookDeliveryResult {
  deliveryId: string;
  outcome: DeliverOutcome;
  attempts: number;
}

const { deliverWebhook } = proxyActivities<Activities>(webhookPolicy);

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const maxAttempts = input.retryDelaysMs.length + 1;
  let outcome: DeliverOutcome = 'failed';
  let attempt = 1;
  for (; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) await sleep(input.retryDelaysMs[attempt - 2] ?? 0);
    try {
      outcome = await deliverWebhook({ ...input, attempt, maxAttempts });
    } catch {
      outcome = 'failed'; // the activity could not even record the attempt; the schedule goes on
    }
    if (outcome !== 'failed') break;
  }
  return { deliveryId: input.deliveryId, outcome, attempts: Math.min(attempt, maxAttempts) };
}
