// The append-only job event log. Every append brings the read models up to date through the projector
// (job-projector.ts), at once or, for a crawl's pages, a moment later with their neighbours. Reads by `_id`.
import type { Db } from 'mongodb';
import type { JobEvent } from '../events.js';
import type { JobView } from '../reducers/job.js';
import { InsertBatches } from './insert-batches.js';
import { JobProjector } from './job-projector.js';
import { COLLECTIONS, pad } from './mongo.js';

type EventDoc = JobEvent & { _id: string };

const PROBE_PARALLELISM = 16;

export const eventKey = (jobId: string, seq: number) => `${jobId}:${pad(seq, 8)}`;

export class EventStore {
  private readonly projector: JobProjector;
  /** Event writes of concurrent appends (a crawl's pages) go to the log together (insert-batches.ts). */
  private readonly inserts = new InsertBatches<EventDoc>(() => this.events);

  /** Sees the events each write newly stored and how long the write took (metrics; see onWritten). */
  private readonly listeners = new Set<(events: readonly JobEvent[], writeMs: number) => void>();

  constructor(private readonly db: Db) {
    this.projector = new JobProjector(db, this);
  }

  /**
   * Calls `listener` after each append with the events it stored (not those already there): every writer
   * of job events goes through here, so the counts in shared/metrics are made once, in one place.
   * Returns the function that removes it. A listener's error never fails the write.
   */
  onWritten(listener: (events: readonly JobEvent[], writeMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The database the log lives in (for activities keeping job-scoped records next to it). */
  database(): Db {
    return this.db;
  }

  private get events() {
    return this.db.collection<EventDoc>(COLLECTIONS.events);
  }

  /**
   * Appends events and brings the read models up to date; an event already stored (same job and seq) is
   * skipped, so retries are harmless.
   */
  async append(events: readonly JobEvent[]): Promise<void> {
    const written = await this.insert(events);
    for (const jobId of new Set(events.map((e) => e.job_id))) {
      await this.project(
        jobId,
        written.filter((e) => e.job_id === jobId),
      );
    }
  }

  /**
   * Appends events and leaves their projection to the caller, who runs project() with the events returned
   * (those not stored before) when it is ready to wait for it: the API starts a job's workflow meanwhile.
   */
  appendUnprojected(events: readonly JobEvent[]): Promise<JobEvent[]> {
    return this.insert(events);
  }

  /**
   * Appends events and starts their projection without waiting for it: the events are safe in the log, and
   * any later projection of the job (at the latest the one of its final event) brings the read models up to
   * date from there. For a crawl's pages, which would otherwise wait ~45 ms each behind the projections of
   * their neighbours. A failed projection goes to `onError`; the next one retries it.
   */
  async appendDeferred(events: readonly JobEvent[], onError: (err: unknown) => void): Promise<void> {
    const written = await this.insert(events);
    for (const jobId of new Set(events.map((e) => e.job_id))) {
      this.projector.projectSoon(
        jobId,
        written.filter((e) => e.job_id === jobId),
        onError,
      );
    }
  }

  /**
   * Writes the events not stored yet and returns them. Only those are handed to the projection: one stored
   * before (a retry's earlier attempt, perhaps with other data) is read back as stored.
   */
  private async insert(events: readonly JobEvent[]): Promise<JobEvent[]> {
    const started = performance.now();
    const inserted = await Promise.all(
      events.map((event) => this.inserts.insert({ _id: eventKey(event.job_id, event.seq), ...event })),
    );
    const written = events.filter((_, i) => inserted[i]);
    const writeMs = performance.now() - started;
    for (const listener of this.listeners) {
      try {
        listener(written, writeMs);
      } catch {
        // Metrics are never worth a lost event write.
      }
    }
    return written;
  }

  async get(jobId: string, seq: number): Promise<JobEvent | null> {
    const doc = await this.events.findOne({ _id: eventKey(jobId, seq) });
    if (!doc) return null;
    const { _id, ...event } = doc;
    return event as JobEvent;
  }

  /**
   * The job's events after `afterSeq`, in order, up to the first seq not yet written (seqs are gap-free, so
   * a missing one is still on its way; it and those after it come in a later call).
   */
  async list(
    jobId: string,
    afterSeq = -1,
    limit = 1000,
    known?: ReadonlyMap<number, JobEvent>,
  ): Promise<JobEvent[]> {
    const out: JobEvent[] = [];
    let next = afterSeq + 1;
    // The events in hand need no read; after them, probe one seq, then twice as many each time they all
    // exist: a job whose log is up to date costs a single lookup, a long backlog is read in parallel batches.
    // Past events in hand the log most likely ends (they were just written): one probe again, not a batch.
    let width = 1;
    while (out.length < limit) {
      const from = next;
      for (let event = known?.get(next); event && out.length < limit; event = known?.get(next)) {
        out.push(event);
        next++;
      }
      if (out.length >= limit || endsHere(out.at(-1), next !== from)) break;
      if (next !== from) width = 1;
      const seqs = Array.from({ length: Math.min(width, limit - out.length) }, (_, i) => next + i);
      const batch = await Promise.all(seqs.map((seq) => known?.get(seq) ?? this.get(jobId, seq)));
      for (const event of batch) {
        if (!event) return out;
        out.push(event);
        if (endsHere(event, false)) return out;
      }
      next += seqs.length;
      width = Math.min(width * 2, PROBE_PARALLELISM);
    }
    return out;
  }

  /** Runs the deferred projections now and waits for every projection in progress (a stopping worker). */
  flushProjections(): Promise<void> {
    return this.projector.flush();
  }

  /** Brings the job's read models up to date with its log (see JobProjector.project). */
  project(jobId: string, inHand: readonly JobEvent[] = []): Promise<JobView | null> {
    return this.projector.project(jobId, inHand);
  }

  /** Drops the read models and derives them again from the event log. */
  async rebuildAll(): Promise<{ jobs: number }> {
    await this.projector.dropAll();
    // The one full scan: rebuilding is an offline operator command.
    const jobIds = await this.events.distinct('job_id', { seq: 0 });
    for (const jobId of jobIds) await this.project(jobId);
    return { jobs: jobIds.length };
  }
}

/**
 * Whether no event needs to be looked for after `event`. A job's end (completed, failed, cancelled) holds its
 * log's last seq: every seq is reserved before the job ends. A job.created its writer has in hand was just
 * appended, before the job's workflow could record much: the workflow's own appends project what follows,
 * so the creator need not probe for it (one read less per job).
 */
function endsHere(event: JobEvent | undefined, inHand: boolean): boolean {
  if (!event) return false;
  if (event.type === 'job.created') return inHand;
  return event.type === 'job.completed' || event.type === 'job.failed' || event.type === 'job.cancelled';
}
