// Records job events from a workflow: ids and sequence numbers are made here, so a replayed or retried
// recording is recognised as the same event.
import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { JobEvent, JobEventBody } from '../shared/events.js';
import { recordPolicy } from './policies.js';

const { recordEvents } = proxyActivities<Activities>(recordPolicy);

export class JobLog {
  constructor(
    private readonly jobId: string,
    private readonly tenantId: string,
    private nextSeq: number,
  ) {}

  /** Reserves a sequence number and an event id for an event another activity will write. */
  reserve(): { seq: number; eventId: string } {
    return { seq: this.nextSeq++, eventId: uuid4() };
  }

  get seq(): number {
    return this.nextSeq;
  }

  async record(...bodies: JobEventBody[]): Promise<void> {
    const at = new Date().toISOString();
    const events = bodies.map(
      (body) =>
        ({ ...body, job_id: this.jobId, tenant_id: this.tenantId, at, ...this.reserveEvent() }) as JobEvent,
    );
    await recordEvents(events);
  }

  private reserveEvent() {
    const { seq, eventId } = this.reserve();
    return { seq, event_id: eventId };
  }
}
