// The events a one-activity job's activity records itself (extractPage, analyzeJob): job.started before it
// fetches, and job.completed with the page's result, each at the place (seq and event id) the workflow
// reserved for it (workflows/page-job.ts runOneActivityJob).
import type { JobEvent, JobEventBody } from '../../shared/events.js';
import type { EventStore } from '../../shared/store/event-store.js';
import { currentActivity } from './activity-context.js';

/** The place (seq and event id, made by the workflow) an event is written at. */
export interface EventPlace {
  seq: number;
  eventId: string;
}

/** Where a one-activity job's events go. */
export interface JobPlaces {
  jobId: string;
  tenantId: string;
  /** The page's result (page.completed); a failure is recorded there by the workflow. */
  page: EventPlace;
  /** job.started, recorded before the fetch (absent: the workflow recorded it). */
  started?: EventPlace;
  /** job.completed, recorded with the page's result (absent: the workflow records it), timed from `since`. */
  completed?: EventPlace & { since: number };
}

export function eventAt(job: JobPlaces, place: EventPlace, body: JobEventBody): JobEvent {
  return {
    ...body,
    job_id: job.jobId,
    tenant_id: job.tenantId,
    seq: place.seq,
    event_id: place.eventId,
    at: new Date().toISOString(),
  } as JobEvent;
}

/** job.completed when the activity records it (none when the workflow does). */
export function completedEvents(job: JobPlaces): JobEvent[] {
  return job.completed
    ? [
        eventAt(job, job.completed, {
          type: 'job.completed',
          data: { duration_ms: Date.now() - job.completed.since },
        }),
      ]
    : [];
}

/** job.started when the activity records it, projected in the background (the page's result projects it at the latest). */
export async function recordStarted(
  deps: { events: Pick<EventStore, 'appendDeferred'> },
  job: JobPlaces,
): Promise<void> {
  if (!job.started) return;
  const logger = currentActivity()?.log ?? console;
  await deps.events.appendDeferred([eventAt(job, job.started, { type: 'job.started', data: {} })], (err) =>
    logger.warn('projecting the job failed; its next event retries', {
      jobId: job.jobId,
      error: String(err),
    }),
  );
}
