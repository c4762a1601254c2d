import type { JobEvent } from '../shared/events.js';
import type { ActivityDeps } from './deps.js';

/** Appends job events (idempotent per job and seq) and updates the read models derived from them. */
export function makeRecordEvents(deps: ActivityDeps) {
  return async function recordEvents(events: JobEvent[]): Promise<void> {
    await deps.events.append(events);
  };
}
