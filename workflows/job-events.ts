// Records job events from a workflow: ids and sequence numbers are made here, so a replayed or retried
// recording is recognised as the same event.
import { CancellationScope, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { JobEvent, JobEventBody } from '../shared/events.js';
import { recordPolicy } from './policies.js';

const { recordEvents } = proxyActivities<Activities>(recordPolicy);

export class JobLog {
  constructor(
    private readonly jobId: string,
    private readonly tenantId: string,
    private nextSeq: number,
    /** Records run to the end even when the job is cancelled meanwhile (their seqs are reserved already). */
    private readonly uncancellable = false,
  ) {}

  /** Reserves a sequence number and an event id for an event another activity will write. */
  reserve(): Slot {
    return { seq: this.nextSeq++, eventId: uuid4() };
  }

  get seq(): number {
    return this.nextSeq;
  }

  /** Records events, each under a new seq, or under a seq reserved earlier (`{ slot, body }`). */
  async record(...items: (JobEventBody | { slot: Slot; body: JobEventBody })[]): Promise<void> {
    const at = new Date().toISOString();
    const events = items.map((item) => {
      const { slot, body } = 'slot' in item ? item : { slot: this.reserve(), body: item };
      return {
        ...body,
        job_id: this.jobId,
        tenant_id: this.tenantId,
        at,
        seq: slot.seq,
        event_id: slot.eventId,
      } as JobEvent;
    });
    await (this.uncancellable
      ? CancellationScope.nonCancellable(() => recordEvents(events))
      : recordEvents(events));
  }
}

/** A seq (and event id) reserved for an event: it must be written exactly once, or readers stall there. */
export interface Slot {
  seq: number;
  eventId: string;
}
