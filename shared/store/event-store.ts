// The append-only job event log and the projector that derives the read models from it: `jobs`, `results`
// (chunked by seq), the tenant's job list and pending set. Every read and write is by `_id`.
import type { Db } from 'mongodb';
import type { CrawlNode, JobEvent } from '../events.js';
import { applyJobEvent, type JobView, reduceJob } from '../reducers/job.js';
import { type ResultView, resultFromEvent } from '../reducers/results.js';
import type { DataSource } from '../structured-data.js';
import { COLLECTIONS, isDuplicateKey, pad, retryOnDuplicate } from './mongo.js';

type EventDoc = JobEvent & { _id: string };
type JobDoc = JobView & { _id: string };
export interface ResultChunkDoc {
  _id: string;
  job_id: string;
  pages: Record<string, ResultView>;
}
/** `<job id>:<last_seq of the version it replaced>` → the version that replaced it (see writeJob). */
export interface JobVersionDoc {
  _id: string;
  job: JobView;
}
export interface TenantCounterDoc {
  _id: string;
  job_seq: number;
  pending: number[];
}

export const RESULTS_PER_CHUNK = 10;
export const CRAWL_MAP_PER_CHUNK = 25;

export interface CrawlMapEntry {
  id: string;
  node: number;
  url: string;
  parent_url: string | null;
  status: string;
  depth: number;
  discovered_at: string;
  completed_at: string | null;
  error_category: string | null;
  error_details: string | null;
  error_message: string | null;
  llm_model: string | null;
  llm_provider: string | null;
  extract_duration_ms: number | null;
  fetch_duration_ms: number | null;
  clean_duration_ms?: number | null;
  token_usage_input: number;
  token_usage_output: number;
  /** Where a completed page's data came from (absent on entries projected before it was shown). */
  data_source?: DataSource | null;
}
export interface CrawlMapChunkDoc {
  _id: string;
  job_id: string;
  entries: Record<string, CrawlMapEntry>;
}
const PROJECT_BATCH = 200;
const WRITTEN_CACHE_SIZE = 500;
const PROBE_PARALLELISM = 16;
/** How long a deferred projection waits for more events of its job (appendDeferred). */
const DEFER_MS = 200;

export const eventKey = (jobId: string, seq: number) => `${jobId}:${pad(seq, 8)}`;
export const resultChunkKey = (jobId: string, chunk: number) => `${jobId}:${pad(chunk, 6)}`;
export const crawlMapChunkKey = (jobId: string, chunk: number) => `${jobId}:${pad(chunk, 6)}`;
export const jobVersionKey = (jobId: string, lastSeq: number) => `${jobId}:${pad(lastSeq, 8)}`;
export const tenantJobKey = (tenantId: string, n: number) => `${tenantId}:${pad(n, 10)}`;

export class EventStore {
  private readonly lanes = new Map<
    string,
    { dirty: boolean; inHand: JobEvent[]; done: Promise<JobView | null> }
  >();
  /**
   * The job documents this process wrote last (a few hundred, oldest dropped): a crawl's next projection
   * starts from here instead of reading the document again. A stale one is harmless: the write is
   * conditional on last_seq, and a refused write drops it and reads the stored document.
   */
  private readonly written = new Map<string, JobDoc>();
  /** Jobs with a deferred projection due, and the events handed over for it. */
  private readonly deferred = new Map<string, JobEvent[]>();

  /** Sees the events each write newly stored and how long the write took (metrics; see onWritten). */
  private readonly listeners = new Set<(events: readonly JobEvent[], writeMs: number) => void>();

  constructor(private readonly db: Db) {}

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
  private get jobs() {
    return this.db.collection<JobDoc>(COLLECTIONS.jobs);
  }
  private get results() {
    return this.db.collection<ResultChunkDoc>(COLLECTIONS.results);
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
   * Appends events and starts their projection without waiting for it: the events are safe in the log, and
   * any later projection of the job (at the latest the one of its final event) brings the read models up to
   * date from there. For a crawl's pages, which would otherwise wait ~45 ms each behind the projections of
   * their neighbours. A failed projection goes to `onError`; the next one retries it.
   */
  async appendDeferred(events: readonly JobEvent[], onError: (err: unknown) => void): Promise<void> {
    const written = await this.insert(events);
    for (const jobId of new Set(events.map((e) => e.job_id))) {
      const mine = written.filter((e) => e.job_id === jobId);
      // One projection for the pages that end within DEFER_MS of each other: a fast crawl's job document
      // is then written every ~10 pages, not every other page.
      const waiting = this.deferred.get(jobId);
      if (waiting) {
        waiting.push(...mine);
        continue;
      }
      this.deferred.set(jobId, mine);
      setTimeout(() => {
        const inHand = this.deferred.get(jobId) ?? [];
        this.deferred.delete(jobId);
        this.project(jobId, inHand).catch(onError);
      }, DEFER_MS).unref();
    }
  }

  /**
   * Writes the events not stored yet and returns them. Only those are handed to the projection: one stored
   * before (a retry's earlier attempt, perhaps with other data) is read back as stored.
   */
  private async insert(events: readonly JobEvent[]): Promise<JobEvent[]> {
    const started = performance.now();
    const written: JobEvent[] = [];
    for (const event of events) {
      try {
        await this.events.insertOne({ _id: eventKey(event.job_id, event.seq), ...event });
        written.push(event);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
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
    for (let event = known?.get(next); event && out.length < limit; event = known?.get(next)) {
      out.push(event);
      next++;
    }
    let width = 1;
    while (out.length < limit) {
      const seqs = Array.from({ length: Math.min(width, limit - out.length) }, (_, i) => next + i);
      const batch = await Promise.all(seqs.map((seq) => known?.get(seq) ?? this.get(jobId, seq)));
      for (const event of batch) {
        if (!event) return out;
        out.push(event);
      }
      next += seqs.length;
      width = Math.min(width * 2, PROBE_PARALLELISM);
    }
    return out;
  }

  /**
   * Brings the job's read models up to date with its log. Safe to run concurrently: the job document is
   * replaced only if nobody advanced it meanwhile, and only the winner applies the side projections.
   */
  async project(jobId: string, inHand: readonly JobEvent[] = []): Promise<JobView | null> {
    // Within one process, projections of a job run one at a time, and callers arriving while one runs
    // share a single follow-up run (their events are already stored, so it sees them). Without this, a
    // crawl's concurrent pages would race on the job document and redo each other's work.
    // The follow-up run is handed the callers' events, so it need not read them back.
    const running = this.lanes.get(jobId);
    if (running) {
      running.dirty = true;
      running.inHand.push(...inHand);
      return running.done;
    }
    const lane = { dirty: false, inHand: [] as JobEvent[], done: Promise.resolve<JobView | null>(null) };
    this.lanes.set(jobId, lane);
    lane.done = (async () => {
      try {
        let view = await this.projectNow(jobId, inHand);
        while (lane.dirty) {
          lane.dirty = false;
          view = await this.projectNow(jobId, lane.inHand.splice(0));
        }
        return view;
      } finally {
        this.lanes.delete(jobId);
      }
    })();
    return lane.done;
  }

  private async projectNow(jobId: string, inHand: readonly JobEvent[]): Promise<JobView | null> {
    const known = new Map(inHand.map((e) => [e.seq, e]));
    // A successor found in the version chain (a writer that took the version we read is ahead of the document).
    let ahead: JobDoc | null = null;
    for (let attempt = 0; attempt < 50; attempt++) {
      const fromChain = ahead;
      const current = ahead ?? this.written.get(jobId) ?? (await this.jobs.findOne({ _id: jobId }));
      ahead = null;
      const after = current?.last_seq ?? -1;
      const pending = await this.list(jobId, after, PROJECT_BATCH, known);
      if (pending.length === 0) {
        // The writer of that version may have died before writing the document: write it for them.
        if (fromChain) await this.writeVersion(stripId(fromChain));
        return current ? stripId(current) : null;
      }
      const next = current ? pending.reduce(applyJobEvent, stripId(current)) : reduceJob(pending);
      if (!next) return null; // no job.created yet
      await this.projectResults(pending);
      await this.projectCrawlMap(pending);
      const written = await this.writeJob(next, current);
      if (written === true) {
        await this.projectTenant(current ? stripId(current) : null, next, pending);
        if (pending.length < PROJECT_BATCH) return next;
      } else if (written) ahead = written;
    }
    throw new Error(`could not project job ${jobId}: too much contention`);
  }

  /**
   * Writes the job document if nobody advanced it from `current` meanwhile: true when written; otherwise the
   * version that did advance it (to continue from) or false (read the document again).
   * The condition is not a filter on last_seq: FerretDB pushes down only a filter that is `_id` alone, and
   * `{ _id, last_seq }` read the whole collection on every projection (350 ms at 10,000 jobs, holding the
   * database's one writer). Instead a move from version A to B is taken by inserting `<job>:<A>` into
   * `job_versions` (unique `_id` on any backend), holding B: one writer wins each version, and a loser, or a
   * writer behind a winner that stalled before writing the document, continues from B.
   */
  private async writeJob(next: JobView, current: JobDoc | null): Promise<boolean | JobDoc> {
    this.written.delete(next.id);
    if (!current) {
      try {
        await this.jobs.insertOne({ _id: next.id, ...next });
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    } else {
      const versions = this.db.collection<JobVersionDoc>(COLLECTIONS.jobVersions);
      try {
        await versions.insertOne({ _id: jobVersionKey(next.id, current.last_seq), job: next });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const taken = await versions.findOne({ _id: jobVersionKey(next.id, current.last_seq) });
        return taken ? { _id: next.id, ...taken.job } : false;
      }
      await this.writeVersion(next);
    }
    this.written.set(next.id, { _id: next.id, ...next });
    if (this.written.size > WRITTEN_CACHE_SIZE)
      this.written.delete(this.written.keys().next().value as string);
    return true;
  }

  /**
   * Writes a version taken in the chain, then checks that it is still the newest: if a later one was taken
   * meanwhile (this writer stalled between taking its version and writing), the document went back, so the
   * newest version of the chain is written again.
   */
  private async writeVersion(written: JobView) {
    await this.jobs.replaceOne({ _id: written.id }, written);
    const versions = this.db.collection<JobVersionDoc>(COLLECTIONS.jobVersions);
    let newest: JobView | null = null;
    for (let seq = written.last_seq; ; ) {
      const later = await versions.findOne({ _id: jobVersionKey(written.id, seq) });
      if (!later) break;
      newest = later.job;
      seq = later.job.last_seq;
    }
    if (newest) await this.jobs.replaceOne({ _id: written.id }, newest);
  }

  /** Page results, idempotent: each page event owns one slot of its chunk; one write per chunk. */
  private async projectResults(events: readonly JobEvent[]) {
    const sets = new Map<string, Record<string, unknown>>();
    for (const event of events) {
      const view = resultFromEvent(event);
      if (!view) continue;
      const key = resultChunkKey(view.job_id, Math.floor(view.seq / RESULTS_PER_CHUNK));
      sets.set(key, { ...sets.get(key), job_id: view.job_id, [`pages.${view.seq}`]: view });
    }
    for (const [_id, $set] of sets) {
      await retryOnDuplicate(() => this.results.updateOne({ _id }, { $set }, { upsert: true }));
    }
  }

  /**
   * Crawl-map entries as discovered (crawl.discovered), idempotent, one write per chunk. A page's outcome is
   * not written here: the crawl map reads it from the page's result (which carries the node), so a page
   * costs one projection write less.
   */
  private async projectCrawlMap(events: readonly JobEvent[]) {
    const col = this.db.collection<CrawlMapChunkDoc>(COLLECTIONS.crawlMap);
    const sets = new Map<string, Record<string, unknown>>();
    for (const event of events) {
      if (event.type !== 'crawl.discovered') continue;
      for (const n of event.data.nodes) {
        const key = crawlMapChunkKey(event.job_id, Math.floor(n.node / CRAWL_MAP_PER_CHUNK));
        const chunk = sets.get(key) ?? { job_id: event.job_id };
        chunk[`entries.${n.node}`] = discoveredEntry(event, n);
        sets.set(key, chunk);
      }
    }
    for (const [_id, $set] of sets) {
      await retryOnDuplicate(() => col.updateOne({ _id }, { $set }, { upsert: true }));
    }
  }

  /** The tenant's newest-first job list entry and its pending set (for queue_position). */
  private async projectTenant(before: JobView | null, after: JobView, events: readonly JobEvent[]) {
    const created = events.find((e) => e.type === 'job.created');
    const n = after.tenant_seq;
    if (n === null) return;
    if (created) {
      try {
        await this.db
          .collection(COLLECTIONS.tenantJobs)
          .insertOne({ _id: tenantJobKey(after.tenant_id, n) as never, job_id: after.id });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    const counters = this.db.collection<TenantCounterDoc>(COLLECTIONS.tenantCounters);
    const wasPending = before?.status === 'pending';
    const isPending = after.status === 'pending';
    if (isPending && !wasPending) {
      await retryOnDuplicate(() =>
        counters.updateOne({ _id: after.tenant_id }, { $addToSet: { pending: n } }, { upsert: true }),
      );
    } else if (!isPending && (wasPending || !before)) {
      await counters.updateOne({ _id: after.tenant_id }, { $pull: { pending: n } });
    }
  }

  /** Drops the read models and derives them again from the event log. */
  async rebuildAll(): Promise<{ jobs: number }> {
    this.written.clear();
    for (const name of [
      COLLECTIONS.jobs,
      COLLECTIONS.jobVersions,
      COLLECTIONS.results,
      COLLECTIONS.tenantJobs,
      COLLECTIONS.crawlMap,
    ]) {
      await this.db.collection(name).deleteMany({});
    }
    await this.db.collection(COLLECTIONS.tenantCounters).updateMany({}, { $set: { pending: [] } });
    // The one full scan: rebuilding is an offline operator command.
    const jobIds = await this.events.distinct('job_id', { seq: 0 });
    for (const jobId of jobIds) await this.project(jobId);
    return { jobs: jobIds.length };
  }
}

function discoveredEntry(event: JobEvent, n: CrawlNode): CrawlMapEntry {
  return {
    id: `${event.job_id}-${n.node}`,
    node: n.node,
    url: n.url,
    parent_url: n.parent_url,
    status: n.status,
    depth: n.depth,
    discovered_at: event.at,
    completed_at: null,
    error_category: null,
    error_details: n.reason ?? null,
    error_message: null,
    llm_model: null,
    llm_provider: null,
    extract_duration_ms: null,
    fetch_duration_ms: null,
    clean_duration_ms: null,
    token_usage_input: 0,
    token_usage_output: 0,
    data_source: null,
  };
}

function stripId(doc: JobDoc): JobView {
  const { _id, ...view } = doc;
  return view;
}
