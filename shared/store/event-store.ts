// The append-only job event log and the projector that derives `jobs` and `results` from it.
import type { Db } from 'mongodb';
import type { JobEvent } from '../events.js';
import { applyJobEvent, type JobView, reduceJob } from '../reducers/job.js';
import { resultFromEvent } from '../reducers/results.js';
import { COLLECTIONS, isDuplicateKey } from './mongo.js';

type EventDoc = JobEvent & { _id: string };
type JobDoc = JobView & { _id: string };

const eventKey = (jobId: string, seq: number) => `${jobId}:${String(seq).padStart(8, '0')}`;

export class EventStore {
  constructor(private readonly db: Db) {}

  private get events() {
    return this.db.collection<EventDoc>(COLLECTIONS.events);
  }
  private get jobs() {
    return this.db.collection<JobDoc>(COLLECTIONS.jobs);
  }

  /** Appends events; an event already stored (same job and seq) is skipped, so retries are harmless. */
  async append(events: readonly JobEvent[]): Promise<void> {
    for (const event of events) {
      try {
        await this.events.insertOne({ _id: eventKey(event.job_id, event.seq), ...event });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    for (const jobId of new Set(events.map((e) => e.job_id))) await this.project(jobId);
  }

  async list(jobId: string, afterSeq = -1, limit = 1000): Promise<JobEvent[]> {
    const docs = await this.events
      .find({ job_id: jobId, seq: { $gt: afterSeq } })
      .sort({ seq: 1 })
      .limit(limit)
      .toArray();
    return docs.map(({ _id, ...e }) => e as JobEvent);
  }

  /** Brings the job's read models up to date with its log. Safe to run concurrently (optimistic check). */
  async project(jobId: string): Promise<JobView | null> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const current = await this.jobs.findOne({ _id: jobId });
      const after = current?.last_seq ?? -1;
      const pending = await this.list(jobId, after);
      if (pending.length === 0) return current;
      await this.projectResults(pending);
      const next = current ? pending.reduce(applyJobEvent, stripId(current)) : reduceJob(pending);
      if (!next) return null;
      if (await this.writeJob(next, current)) {
        if (pending.length < 1000) return next;
      }
    }
    throw new Error(`could not project job ${jobId}: too much contention`);
  }

  private async writeJob(next: JobView, current: JobDoc | null) {
    if (!current) {
      try {
        await this.jobs.insertOne({ _id: next.id, ...next });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    }
    const res = await this.jobs.replaceOne({ _id: next.id, last_seq: current.last_seq }, next);
    return res.matchedCount === 1;
  }

  private async projectResults(events: readonly JobEvent[]) {
    const results = this.db.collection(COLLECTIONS.results);
    for (const event of events) {
      const view = resultFromEvent(event);
      if (!view) continue;
      const _id = `${view.job_id}:${view.url}`;
      try {
        // Only a newer event replaces a page's result; an older replay loses the race harmlessly.
        await results.replaceOne({ _id, seq: { $lt: view.seq } } as object, view, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  /** Drops the read models and derives them again from the event log. */
  async rebuildAll(): Promise<{ jobs: number }> {
    await this.jobs.deleteMany({});
    await this.db.collection(COLLECTIONS.results).deleteMany({});
    const jobIds = await this.events.distinct('job_id');
    for (const jobId of jobIds) await this.project(jobId);
    return { jobs: jobIds.length };
  }
}

function stripId(doc: JobDoc): JobView {
  const { _id, ...view } = doc;
  return view;
}
