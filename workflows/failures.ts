// Reads our error category back out of an activity failure.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { type BudgetName, budgetOfDetails } from '../shared/budget.js';
import { type ErrorCategory, isErrorCategory } from '../shared/errors.js';

export function categoryOf(err: unknown): { category: ErrorCategory; message: string; budget?: BudgetName } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const category = isErrorCategory(cause.type) ? cause.type : 'unknown';
    // Our budget's refusal (not a provider's quota): its details name the budget.
    const budget = category === 'quota_exceeded' ? budgetOfDetails(cause.details?.[0]) : null;
    return { category, message: cause.message, ...(budget ? { budget } : {}) };
  }
  if (cause instanceof Error && cause.name === 'TimeoutFailure')
    return { category: 'timeout', message: cause.message };
  return { category: 'unknown', message: cause instanceof Error ? cause.message : String(cause) };
}
