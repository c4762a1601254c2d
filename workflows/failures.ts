// Reads our error category back out of an activity failure.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { type ErrorCategory, isErrorCategory } from '../shared/errors.js';

export function categoryOf(err: unknown): { category: ErrorCategory; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return { category: isErrorCategory(cause.type) ? cause.type : 'unknown', message: cause.message };
  }
  if (cause instanceof Error && cause.name === 'TimeoutFailure')
    return { category: 'timeout', message: cause.message };
  return { category: 'unknown', message: cause instanceof Error ? cause.message : String(cause) };
}
