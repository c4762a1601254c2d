// Webhook event names and the per-job delivery plan. Pure: imported by workflows, the API and activities.

/** monitor.changed: a monitor's run found its results changed since the run before (sent by monitor runs only). */
export const WEBHOOK_EVENTS = [
  'job.started',
  'job.progress',
  'job.completed',
  'job.failed',
  'monitor.changed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** How a custom header's value (write only, often a credential) is shown in every response. */
export const MASKED_HEADER_VALUE = '****';

/** Delivery statuses: created, waiting for a retry, delivered, or out of attempts. */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * What a job workflow knows about its webhooks: per destination (by index into the job's stored
 * destinations) the events it receives, and the retry schedule. No URLs, no secrets.
 */
export type { WebhookPlan } from './schemas/job-spec.js';

/** `events` empty, null or containing "*" means every event. */
export function expandEvents(events: readonly string[] | null | undefined): WebhookEvent[] {
  if (!events || events.length === 0 || events.includes('*')) return [...WEBHOOK_EVENTS];
  return WEBHOOK_EVENTS.filter((e) => events.includes(e));
}
