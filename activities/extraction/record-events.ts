import type { JobEvent, PageCompletedData } from '../../shared/events.js';
import type { EventStore } from '../../shared/store/event-store.js';
import { currentActivity } from '../common/activity-context.js';
import type { StoreDeps } from '../common/deps.js';
import type { ExtractWithModelInput } from './extraction-types.js';

/** Appends job events (idempotent per job and seq) and updates the read models derived from them. */
export function makeRecordEvents(deps: StoreDeps) {
  return async function recordEvents(events: JobEvent[]): Promise<void> {
    await deps.events.append(events);
  };
}

/**
 * Records a page's result event: projected before returning, or stored and projected in the background.
 * `after`: events written with it in the same append (an extract's job.completed), one projection for all.
 * Returns the page's event as it was written.
 */
export function makeRecordPage(deps: { events: Pick<EventStore, 'append' | 'appendDeferred'> }) {
  return async function recordPage(
    input: Pick<ExtractWithModelInput, 'jobId' | 'tenantId' | 'eventSeq' | 'eventId' | 'revises'>,
    answered: PageCompletedData,
    projection: 'awaited' | 'deferred',
    after: readonly JobEvent[] = [],
  ): Promise<JobEvent> {
    const page = input.revises ? { ...answered, revises: input.revises } : answered;
    const event: JobEvent = {
      type: 'page.completed',
      data: page,
      job_id: input.jobId,
      tenant_id: input.tenantId,
      seq: input.eventSeq,
      event_id: input.eventId,
      at: new Date().toISOString(),
    };
    const events = [event, ...after];
    if (projection === 'awaited') await deps.events.append(events);
    else {
      const logger = currentActivity()?.log ?? console;
      await deps.events.appendDeferred(events, (err) =>
        logger.warn('projecting the job failed; its next event retries', {
          jobId: input.jobId,
          error: String(err),
        }),
      );
    }
    return event;
  };
}
