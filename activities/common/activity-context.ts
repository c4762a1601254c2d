// The running activity's context, where there is one: activity code is also called directly (tests, scripts).
import { Context } from '@temporalio/activity';

export function currentActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Tells Temporal this worker is still at it; nothing outside an activity. */
export function heartbeat(): void {
  currentActivity()?.heartbeat();
}
