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

/** Header names the service sets on every delivery: its framing and its signatures. */
const SERVICE_HEADERS = new Set([
  'content-type',
  'x-service-event',
  'x-service-delivery',
  'x-service-signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/**
 * Connection-control names: they describe one hop's connection, not the delivery, and the HTTP client refuses
 * most of them, so a webhook carrying one would fail every delivery.
 */
const HOP_BY_HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'transfer-encoding',
  'content-length',
  'host',
  'http2-settings',
]);

/** Why a custom header may not have this name, or null when it may. */
export function reservedHeaderReason(name: string): string | null {
  const lower = name.toLowerCase();
  if (SERVICE_HEADERS.has(lower)) return `${name} is set by the service`;
  if (HOP_BY_HOP_HEADERS.has(lower) || lower.startsWith('proxy-')) {
    return `${name} controls the connection, not the delivery: it cannot be sent`;
  }
  return null;
}

/** Delivery statuses: created, waiting for a retry, delivered, or out of attempts. */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** `events` empty, null or containing "*" means every event. */
export function expandEvents(events: readonly string[] | null | undefined): WebhookEvent[] {
  if (!events || events.length === 0 || events.includes('*')) return [...WEBHOOK_EVENTS];
  return WEBHOOK_EVENTS.filter((e) => events.includes(e));
}
