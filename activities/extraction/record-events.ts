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
    const event = pageEvent(input, answered);
    const events: JobEvent[] = [event, ...after];
    if (projection === 'awaited') await deps.events.append(events);
    else await appendPageEvents(deps, events);
    return event;
  };
}

/** A page's result event, as recordPage writes it (a crawl batch holds its pages' and writes them together). */
export function pageEvent(
  input: Pick<ExtractWithModelInput, 'jobId' | 'tenantId' | 'eventSeq' | 'eventId' | 'revises'>,
  answered: PageCompletedData,
): JobEvent {
  return {
    type: 'page.completed',
    data: input.revises ? { ...answered, revises: input.revises } : answered,
    job_id: input.jobId,
    tenant_id: input.tenantId,
    seq: input.eventSeq,
    event_id: input.eventId,
    at: new Date().toISOString(),
  };
}

/** Stores pages' events and projects their jobs in the background (a failed projection is retried later). */
export async function appendPageEvents(
  deps: { events: Pick<EventStore, 'appendDeferred'> },
  events: readonly JobEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const logger = currentActivity()?.log ?? console;
  await deps.events.appendDeferred(events, (err) =>
    logger.warn('projecting the job failed; its next event retries', {
      jobId: events[0]?.job_id,
      error: String(err),
    }),
  );
}
