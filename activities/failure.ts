// Turns any error into an ApplicationFailure whose type is our error category, so workflows and retry
// policies speak one vocabulary.
import { ApplicationFailure } from '@temporalio/common';
import { budgetOfDetails } from '../shared/budget.js';
import { CategorizedError } from '../shared/errors.js';

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

/** Runs an activity body and rethrows its failure in the shared vocabulary. */
export async function categorized<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toFailure(err);
  }
}

/** The message of a model call our budget refused (activities/budget-guard.ts), or null for any other error. */
export function budgetRefusal(err: unknown): string | null {
  if (err instanceof CategorizedError)
    return err.category === 'quota_exceeded' && budgetOfDetails(err.details) ? err.message : null;
  if (err instanceof ApplicationFailure)
    return err.type === 'quota_exceeded' && budgetOfDetails(err.details?.[0]) ? err.message : null;
  return null;
}
