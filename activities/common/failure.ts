// Turns any error into an ApplicationFailure whose type is our error category, so workflows and retry
// policies speak one vocabulary.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { budgetOfDetails } from '../../shared/budget.js';
import { CategorizedError } from '../../shared/errors.js';
import { currentActivity } from './activity-context.js';

export function toFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof CategorizedError) {
    return ApplicationFailure.create({
      message: err.message,
      type: err.category,
      nonRetryable: !err.retryable,
      details: err.details ? [err.details] : undefined,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({ message, type: 'unknown', nonRetryable: false });
}

/**
 * Runs an activity body and rethrows its failure in the shared vocabulary. An activity that was cancelled
 * (its worker stopping, its job cancelled, its heartbeat timed out) rethrows the cancellation itself, whatever
 * error the cancelled work raised: the SDK reports a worker shutdown as a retryable failure, so the page is
 * run again (by this worker once it is back, or by another) instead of failing as "fetch_error: aborted".
 */
export async function categorized<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw cancellationOf() ?? toFailure(err);
  }
}

/** The running activity's cancellation, when it has been cancelled. */
export function cancellationOf(): CancelledFailure | undefined {
  const signal = currentActivity()?.cancellationSignal;
  if (!signal?.aborted) return undefined;
  return signal.reason instanceof CancelledFailure
    ? signal.reason
    : new CancelledFailure(String(signal.reason));
}

/**
 * The message of a model call our budget refused (activities/extraction/budget-guard.ts), or null for any
 * other error.
 */
export function budgetRefusal(err: unknown): string | null {
  if (err instanceof CategorizedError)
    return err.category === 'quota_exceeded' && budgetOfDetails(err.details) ? err.message : null;
  if (err instanceof ApplicationFailure)
    return err.type === 'quota_exceeded' && budgetOfDetails(err.details?.[0]) ? err.message : null;
  return null;
}
