// The projector: derives the read models (the job document, page results in chunks, crawl-map chunks, the
// tenant's job list and pending set) from the job event log. Safe to run concurrently and again.
import type { Db } from 'mongodb';
import type { JobEvent } from '../events.js';
import { applyJobEvent, isFinal, type JobView, reduceJob } from '../reducers/job.js';
import { resultFromEvent } from '../reducers/results.js';
import { COLLECTIONS, isDuplicateKey, retryOnDuplicate } from './mongo.js';
import {
  CRAWL_MAP_PER_CHUNK,
  type CrawlMapChunkDoc,
  crawlMapChunkKey,
  discoveredEntry,
  type JobVersionDoc,
  jobVersionKey,
  RESULTS_PER_CHUNK,
  type ResultChunkDoc,
  resultChunkKey,
  type TenantCounterDoc,
  tenantJobKey,
} from './read-models.js';

type JobDoc = JobView & { _id: string };

/** What the projector reads of the log: a job's events after a seq, up to the first one not yet written. */
export interface LogReader {
  list(
    jobId: string,
    afterSeq: number,
    limit: number,
    known?: ReadonlyMap<number, JobEvent>,
  ): Promise<JobEvent[]>;
}

const PROJECT_BATCH = 200;
const WRITTEN_CACHE_SIZE = 500;
/** Events kept in hand per job past a gap in its log (see held), and jobs kept so. */
const HELD_PER_JOB = 2000;
const HELD_JOBS = 200;
/**
 * How long a deferred projection waits for more events of its job (projectSoon), unless DEFER_MAX_EVENTS
 * come first. Each projection costs ~5 writes and reads; at 200 ms a crawl of 25 pages/s paid one per 5
 * pages, at 500 ms one per 12 (a crawl's read models lag its log by at most this; its SSE reads the log).
 */
const DEFER_MS = 500;
const DEFER_MAX_EVENTS = 50;

export class JobProjector {
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
  /**
   * Events this process wrote that a projection could not apply yet, by job and seq: a crawl's pages end out
   * of order, so a page's event often lies past a seq still in flight; kept here, the projection that fills
   * the gap applies it without reading it back from the log (it read ~4 events a projection before).
   */
  private readonly held = new Map<string, Map<number, JobEvent>>();
  /**
   * Job documents read while a deferred projection waits (projectSoon), for it to start from: an extract's
   * page then projects its result without reading the job first. Taken (and dropped) by the next projection.
   */
  private readonly readAhead = new Map<string, Promise<JobDoc | null>>();
  /** Jobs with a deferred projection due: the events handed over for it, its timer and where errors go. */
  private readonly deferred = new Map<
    string,
    { events: JobEvent[]; timer: NodeJS.Timeout; onError: (err: unknown) => void }
  >();

  constructor(
    private readonly db: Db,
    private readonly log: LogReader,
  ) {}

  private get jobs() {
    return this.db.collection<JobDoc>(COLLECTIONS.jobs);
  }
  private get results() {
    return this.db.collection<ResultChunkDoc>(COLLECTIONS.results);
  }

  /**
   * Projects the job a moment later, together with whatever else of it is written meanwhile: one projection
   * for the pages that end within DEFER_MS of each other (or DEFER_MAX_EVENTS of them), so a fast crawl's
   * job document is written every ~10–50 pages, not every other page. A failed projection goes to `onError`; the next one retries it.
   */
  projectSoon(jobId: string, inHand: readonly JobEvent[], onError: (err: unknown) => void): void {
    const waiting = this.deferred.get(jobId);
    if (waiting) {
      waiting.events.push(...inHand);
      if (waiting.events.length >= DEFER_MAX_EVENTS) this.projectDeferred(jobId)?.catch(onError);
      return;
    }
    const timer = setTimeout(() => {
      this.projectDeferred(jobId)?.catch(onError);
    }, DEFER_MS).unref();
    this.deferred.set(jobId, { events: [...inHand], timer, onError });
    if (!this.written.has(jobId) && !this.readAhead.has(jobId)) {
      // The projection would read it first anyway; a document changed meanwhile is met as a stale cached one.
      this.readAhead.set(
        jobId,
        this.jobs.findOne({ _id: jobId }).catch(() => null),
      );
      if (this.readAhead.size > HELD_JOBS)
        this.readAhead.delete(this.readAhead.keys().next().value as string);
    }
  }

  private projectDeferred(jobId: string): Promise<JobView | null> | undefined {
    const due = this.deferred.get(jobId);
    if (!due) return undefined;
    clearTimeout(due.timer);
    this.deferred.delete(jobId);
    return this.project(jobId, due.events);
  }

  /**
   * Runs every deferred projection now and waits for them and for those running: a stopping worker leaves
   * the read models as up to date as its log (else the pages it finished last wait for the job's next event).
   */
  async flush(): Promise<void> {
    const due = [...this.deferred.entries()].map(([jobId, { onError }]) =>
      this.projectDeferred(jobId)?.catch(onError),
    );
    await Promise.all([...due, ...[...this.lanes.values()].map((lane) => lane.done.catch(() => null))]);
  }

  /**
   * Brings the job's read models up to date with its log. Safe to run concurrently: the job document is
   * replaced only if nobody advanced it meanwhile, and only the winner applies the side projections.
   * `inHand`: events the caller just wrote, which need no read.
   */
  async project(jobId: string, inHand: readonly JobEvent[] = []): Promise<JobView | null> {
    // A deferred projection of the job is due anyway: this one takes its events (an extract's job.started,
    // appended before its fetch, is then not read back when its result is projected).
    const due = this.deferred.get(jobId);
    if (due) {
      clearTimeout(due.timer);
      this.deferred.delete(jobId);
      inHand = [...due.events, ...inHand];
    }
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
    const known = this.hold(jobId, inHand);
    const view = await this.projectKnown(jobId, known);
    // What the job document now holds is no longer needed in hand; what lies past a gap waits for it.
    const through = view?.last_seq ?? -1;
    for (const seq of known.keys()) if (seq <= through) known.delete(seq);
    if (known.size === 0) this.held.delete(jobId);
    return view;
  }

  /** The job's events in hand: those held from earlier projections and these. */
  private hold(jobId: string, inHand: readonly JobEvent[]): Map<number, JobEvent> {
    let known = this.held.get(jobId);
    if (known) this.held.delete(jobId); // re-inserted last: the oldest job is dropped first
    known ??= new Map();
    for (const e of inHand) known.set(e.seq, e);
    // Bounded: an event not held is read back from the log when needed, as before.
    if (known.size > HELD_PER_JOB)
      known = new Map([...known].sort((a, b) => a[0] - b[0]).slice(0, HELD_PER_JOB));
    this.held.set(jobId, known);
    if (this.held.size > HELD_JOBS) this.held.delete(this.held.keys().next().value as string);
    return known;
  }

  private async projectKnown(jobId: string, known: ReadonlyMap<number, JobEvent>): Promise<JobView | null> {
    // A successor found in the version chain (a writer that took the version we read is ahead of the document).
    let ahead: JobDoc | null = null;
    for (let attempt = 0; attempt < 50; attempt++) {
      const fromChain = ahead;
      // A job.created in hand was just appended by its creator: its document is most likely not there yet, so
      // the first try inserts it without looking (a duplicate makes the next try read it).
      const fresh = known.get(0)?.type === 'job.created';
      const read = this.readAhead.get(jobId);
      this.readAhead.delete(jobId);
      const current =
        ahead ??
        this.written.get(jobId) ??
        (fresh && attempt === 0 ? null : ((await read) ?? (await this.jobs.findOne({ _id: jobId }))));
      ahead = null;
      const after = current?.last_seq ?? -1;
      const pending = await this.log.list(jobId, after, PROJECT_BATCH, known);
      if (pending.length === 0) {
        // The writer of that version may have died before writing the document: write it for them.
        if (fromChain) await this.writeVersion(stripId(fromChain));
        return current ? stripId(current) : null;
      }
      const next = current ? pending.reduce(applyJobEvent, stripId(current)) : reduceJob(pending);
      if (!next) return null; // no job.created yet
      const written = await this.writeJob(
        next,
        current,
        () => Promise.all([this.projectResults(pending), this.projectCrawlMap(pending)]),
        () => this.projectTenant(current ? stripId(current) : null, next, pending, fresh),
      );
      if (written === true) {
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
   * `sides` (the page results, the crawl map: idempotent, written by every writer) run while the version is
   * taken, and always finish before the document moves, so a job document never shows a page whose result is
   * not written (a writer continuing past a taken version has written the results of the events since the
   * document's version itself). `winner` (the tenant's list and pending set) runs only when this writer wins,
   * beside the document's write.
   */
  private async writeJob(
    next: JobView,
    current: JobDoc | null,
    sides: () => Promise<unknown>,
    winner: () => Promise<unknown>,
  ): Promise<boolean | JobDoc> {
    this.written.delete(next.id);
    if (!current) {
      await sides();
      try {
        await this.jobs.insertOne({ _id: next.id, ...next });
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
      await winner();
    } else {
      const versions = this.db.collection<JobVersionDoc>(COLLECTIONS.jobVersions);
      const key = jobVersionKey(next.id, current.last_seq);
      const [took] = await Promise.all([
        versions.insertOne({ _id: key, job: next }).then(
          () => true,
          (err: unknown) => {
            if (!isDuplicateKey(err)) throw err;
            return false;
          },
        ),
        sides(),
      ]);
      if (!took) {
        const taken = await versions.findOne({ _id: key });
        return taken ? { _id: next.id, ...taken.job } : false;
      }
      // The version is this writer's: its tenant writes go beside the document. No version is ever taken
      // past a job's end (every seq is reserved before it): then there is no newer one to look for.
      await Promise.all([
        this.jobs
          .replaceOne({ _id: next.id }, next)
          .then(() => (isFinal(next.status) ? null : this.keepNewest(next))),
        winner(),
      ]);
    }
    this.written.set(next.id, { _id: next.id, ...next });
    if (this.written.size > WRITTEN_CACHE_SIZE)
      this.written.delete(this.written.keys().next().value as string);
    return true;
  }

  /** Writes a version taken in the chain (its writer stalled or died before), then keepNewest. */
  private async writeVersion(written: JobView) {
    await this.jobs.replaceOne({ _id: written.id }, written);
    await this.keepNewest(written);
  }

  /**
   * After a version is written, checks that it is still the newest: if a later one was taken meanwhile (this
   * writer stalled between taking its version and writing), the document went back, so the newest version of
   * the chain is written again.
   */
  private async keepNewest(written: JobView) {
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

  /**
   * The tenant's newest-first job list entry and its pending set (for queue_position). `numbered`: the
   * job.created is its creator's, in hand (the entry was written when the job was numbered).
   */
  private async projectTenant(
    before: JobView | null,
    after: JobView,
    events: readonly JobEvent[],
    numbered: boolean,
  ) {
    const created = events.find((e) => e.type === 'job.created');
    const n = after.tenant_seq;
    if (n === null) return;
    // Its creator, who numbered the job (JobStore.nextTenantSeq), wrote the entry; a rebuild writes it here.
    if (created && !numbered) {
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

  /** Drops the read models (the documents this process holds too); the caller projects every job again. */
  async dropAll(): Promise<void> {
    this.written.clear();
    this.held.clear();
    this.readAhead.clear();
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
  }
}

function stripId(doc: JobDoc): JobView {
  const { _id, ...view } = doc;
  return view;
}
