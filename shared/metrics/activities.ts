// What an activity's run says beyond its duration: a webhook attempt's outcome, a crawl frontier's spill.
// Read from the activity's input and result by the worker's metrics interceptor, so the activities themselves
// carry no metrics code.
import { attemptLabel } from './labels.js';
import type { ServiceMetrics } from './registry.js';

/** How an activity ended. (Its type is a safe label: a worker runs only its registered activities.) */
export type ActivityOutcome = 'ok' | 'error' | 'cancelled';

interface WebhookAttempt {
  attempt?: unknown;
  maxAttempts?: unknown;
}

export function countActivityResult(
  metrics: ServiceMetrics,
  activity: string,
  input: unknown,
  outcome: ActivityOutcome,
  result: unknown,
): void {
  if (activity === 'deliverWebhook') {
    const { attempt, maxAttempts } = (input ?? {}) as WebhookAttempt;
    metrics.webhookDeliveries.inc({
      outcome: webhookOutcome(outcome, result, attempt, maxAttempts),
      attempt: attemptLabel(attempt),
    });
  } else if (activity === 'storeFrontierChunk' && outcome === 'ok') {
    const pages = (input as { pages?: unknown[] } | undefined)?.pages;
    if (Array.isArray(pages)) metrics.crawlFrontierStored.inc(pages.length);
  }
}

function webhookOutcome(outcome: ActivityOutcome, result: unknown, attempt: unknown, max: unknown): string {
  if (outcome !== 'ok') return 'error';
  if (result === 'success' || result === 'no_destination') return result;
  const last = typeof attempt === 'number' && typeof max === 'number' && attempt >= max;
  return last ? 'failed' : 'retry';
}
