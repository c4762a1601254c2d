// Reads of the job projections, always scoped to one tenant, all by `_id`.
import type { Db } from 'mongodb';
import type { JobView } from '../reducers/job.js';
import type { ResultView } from '../reducers/results.js';
import { COLLECTIONS, isDuplicateKey, retryOnDuplicate } from './mongo.js';
import {
  CRAWL_MAP_PER_CHUNK,
  type CrawlMapChunkDoc,
  type CrawlMapEntry,
  crawlMapChunkKey,
  RESULTS_PER_CHUNK,
  type ResultChunkDoc,
  resultChunkKey,
  type TenantCounterDoc,
  tenantJobKey,
} from './read-models.js';

type JobDoc = JobView & { _id: string };

/** How many of the tenant's newest jobs a filtered list looks through (a request's reads stay bounded). */
export const JOB_FILTER_WINDOW = 10_000;

/** What GET /jobs may keep: one type, one status, or both. */
export interface JobFilter {
  type?: JobView['type'];
  status?: JobView['status'];
}

/** The crawl-map fields a page's result decides. */
export function pageOutcome(r: ResultView) {
  return {
    status: r.status,
    completed_at: r.completed_at,
    error_category: r.error_category,
    error_message: r.error_message,
    llm_model: r.model,
    llm_provider: r.provider,
    extract_duration_ms: r.extract_duration_ms,
    fetch_duration_ms: r.fetch_duration_ms,
    clean_duration_ms: r.clean_duration_ms ?? null,
    token_usage_input: r.input_tokens,
    token_usage_output: r.output_tokens,
    data_source: r.status === 'completed' ? (r.data_source ?? 'model') : null,
  };
}
const PARALLEL = 16;

export class JobReader {
  constructor(private readonly db: Db) {}

  private get jobs() {
    return this.db.collection<JobDoc>(COLLECTIONS.jobs);
  }
  private get counters() {
    return this.db.collection<TenantCounterDoc>(COLLECTIONS.tenantCounters);
  }

  async get(tenantId: string, jobId: string): Promise<JobView | null> {
    const doc = await this.jobs.findOne({ _id: jobId });
    if (!doc || doc.tenant_id !== tenantId) return null;
    const { _id, ...view } = doc;
    return view;
  }

  /** Reserves the next job number of the tenant (1, 2, …). */
  /**
   * The job's number among its tenant's jobs, and its entry in the tenant's job list. The counter's `$inc`
   * only proposes a number: FerretDB applies an update as a read and a write without a transaction, so
   * concurrent increments can hand out one number twice (measured: 30 at once gave 5 duplicates). The number
   * is taken by inserting its list entry, whose `_id` is unique on any backend; a taken one moves on.
   */
  async nextTenantSeq(tenantId: string, jobId: string): Promise<number> {
    const doc = await retryOnDuplicate(() =>
      this.counters.findOneAndUpdate(
        { _id: tenantId },
        { $inc: { job_seq: 1 } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    const entries = this.db.collection<{ _id: string; job_id: string }>(COLLECTIONS.tenantJobs);
    const counted = doc?.job_seq ?? 1;
    for (let n = counted; ; n++) {
      try {
        await entries.insertOne({ _id: tenantJobKey(tenantId, n), job_id: jobId });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if ((await entries.findOne({ _id: tenantJobKey(tenantId, n) }))?.job_id !== jobId) continue;
      }
      // The counter may have lost increments too: it never stays below a number taken past it (the number
      // it handed out is already counted; list() also looks past the counter for numbers just taken).
      if (n > counted) await this.counters.updateOne({ _id: tenantId }, { $max: { job_seq: n } });
      return n;
    }
  }

  /** The tenant's newest job number in use. */
  private async newestNumber(tenantId: string): Promise<number> {
    const counter = await this.counters.findOne({ _id: tenantId });
    // Numbers just taken may be past the counter (see nextTenantSeq): start from the last one in use.
    let newest = counter?.job_seq ?? 0;
    while (
      await this.db
        .collection(COLLECTIONS.tenantJobs)
        .findOne({ _id: tenantJobKey(tenantId, newest + 1) as never })
    )
      newest++;
    return newest;
  }

  /** Every job of the tenant, newest first, a batch of job numbers at a time (for totals over them). */
  async *newestFirst(tenantId: string): AsyncGenerator<JobView[]> {
    const entries = this.db.collection<{ _id: string; job_id: string }>(COLLECTIONS.tenantJobs);
    for (let n = await this.newestNumber(tenantId); n >= 1; n -= PARALLEL) {
      const numbers = Array.from({ length: Math.min(PARALLEL, n) }, (_, i) => n - i);
      const found = await Promise.all(
        numbers.map((k) => entries.findOne({ _id: tenantJobKey(tenantId, k) })),
      );
      const jobs = await Promise.all(found.map((entry) => (entry ? this.get(tenantId, entry.job_id) : null)));
      yield jobs.filter((j): j is JobView => j !== null);
    }
  }

  /**
   * The tenant's jobs, newest first, walking its job numbers down (numbers never used are skipped). With a
   * filter, each job is read as the walk goes (every read keyed), over the newest JOB_FILTER_WINDOW jobs, and
   * `offset` and `limit` count matches.
   */
  async list(tenantId: string, limit: number, offset: number, filter: JobFilter = {}): Promise<JobView[]> {
    if (filter.type || filter.status) return this.listMatching(tenantId, limit, offset, filter);
    const ids: string[] = [];
    let skipped = 0;
    const newest = await this.newestNumber(tenantId);
    for (let n = newest; n >= 1 && ids.length < limit; n -= PARALLEL) {
      const numbers = Array.from({ length: Math.min(PARALLEL, n) }, (_, i) => n - i);
      const entries = await Promise.all(
        numbers.map((k) =>
          this.db
            .collection<{ _id: string; job_id: string }>(COLLECTIONS.tenantJobs)
            .findOne({ _id: tenantJobKey(tenantId, k) }),
        ),
      );
      for (const entry of entries) {
        if (!entry) continue;
        if (skipped < offset) skipped++;
        else if (ids.length < limit) ids.push(entry.job_id);
      }
    }
    const jobs = await Promise.all(ids.map((id) => this.get(tenantId, id)));
    return jobs.filter((j): j is JobView => j !== null);
  }

  private async listMatching(tenantId: string, limit: number, offset: number, filter: JobFilter) {
    const matches = (job: JobView) =>
      (!filter.type || job.type === filter.type) && (!filter.status || job.status === filter.status);
    const page: JobView[] = [];
    let skipped = 0;
    let walked = 0;
    for await (const batch of this.newestFirst(tenantId)) {
      // A filter matching few of many jobs must not read them all: it looks at the newest JOB_FILTER_WINDOW.
      if (walked >= JOB_FILTER_WINDOW) break;
      walked += batch.length;
      for (const job of batch.filter(matches)) {
        if (skipped < offset) skipped++;
        else page.push(job);
        if (page.length === limit) return page;
      }
    }
    return page;
  }

  /**
   * Number of the tenant's pending jobs created before this one (0 when running or finished). Each number
   * in the pending set is checked against its job: concurrent `$addToSet`/`$pull`s of the one set can lose
   * a `$pull` on FerretDB (see nextTenantSeq), and a job that started long ago must not hold a place.
   */
  async queuePosition(job: JobView): Promise<number> {
    if (job.status !== 'pending' || job.tenant_seq === null) return 0;
    const counter = await this.counters.findOne({ _id: job.tenant_id });
    const ahead = (counter?.pending ?? []).filter((n) => n < (job.tenant_seq ?? 0));
    const entries = this.db.collection<{ _id: string; job_id: string }>(COLLECTIONS.tenantJobs);
    const stillPending = await Promise.all(
      ahead.map(async (n) => {
        const entry = await entries.findOne({ _id: tenantJobKey(job.tenant_id, n) });
        const other = entry ? await this.get(job.tenant_id, entry.job_id) : null;
        // Numbered but not yet projected: a job being created, so pending.
        if (other?.status === 'pending' || (entry && !other)) return true;
        // Ended (or never created): a $pull that was lost; take it out now.
        if (other) await this.counters.updateOne({ _id: job.tenant_id }, { $pull: { pending: n } });
        return false;
      }),
    );
    return stillPending.filter(Boolean).length;
  }

  /**
   * The crawl map: every discovered URL by discovery order, with the outcome of those processed (read from
   * their results), a batch of chunks at a time. Only each page's outcome is kept across batches, never its
   * data, so a crawl of 10,000 pages costs its outcomes (a few hundred bytes a page), not its results.
   */
  async *crawlMapBatches(job: JobView): AsyncGenerator<CrawlMapEntry[]> {
    const outcomes = await this.outcomesByNode(job);
    const chunks = Math.ceil(job.discovered_count / CRAWL_MAP_PER_CHUNK);
    for (let start = 0; start < chunks; start += PARALLEL) {
      const docs = await Promise.all(
        Array.from({ length: Math.min(PARALLEL, chunks - start) }, (_, i) =>
          this.db
            .collection<CrawlMapChunkDoc>(COLLECTIONS.crawlMap)
            .findOne({ _id: crawlMapChunkKey(job.id, start + i) }),
        ),
      );
      // Chunk k holds nodes [25k, 25k + 25): sorting a batch sorts the whole map.
      const entries = docs.flatMap((doc) => (doc ? Object.values(doc.entries) : []));
      for (const entry of entries) Object.assign(entry, outcomes.get(entry.node));
      yield entries.sort((a, b) => a.node - b.node);
    }
  }

  /** Each processed node's outcome, from its latest result. */
  private async outcomesByNode(job: JobView) {
    const outcomes = new Map<number, ReturnType<typeof pageOutcome>>();
    for await (const batch of this.resultBatches(job)) {
      for (const r of batch)
        if (r.node !== null && r.node !== undefined) outcomes.set(r.node, pageOutcome(r));
    }
    return outcomes;
  }

  /**
   * Page results of a job in event order, a batch of chunks (at most 160 pages) at a time: each batch is
   * read by `_id`s (`<job id>:<chunk>`), the only lookup FerretDB pushes down.
   */
  async *resultBatches(job: JobView): AsyncGenerator<ResultView[]> {
    const chunks = Math.floor(job.last_seq / RESULTS_PER_CHUNK) + 1;
    for (let start = 0; start < chunks; start += PARALLEL) {
      const docs = await Promise.all(
        Array.from({ length: Math.min(PARALLEL, chunks - start) }, (_, i) =>
          this.db
            .collection<ResultChunkDoc>(COLLECTIONS.results)
            .findOne({ _id: resultChunkKey(job.id, start + i) }),
        ),
      );
      // Chunk k holds seqs [10k, 10k + 10): sorting a batch keeps the whole list in event order.
      const pages = docs.flatMap((doc) => (doc ? Object.values(doc.pages) : []));
      yield pages.sort((a, b) => a.seq - b.seq);
    }
  }

  /** Every page result of a job in event order (for jobs known to be small, or callers that need them all). */
  async results(job: JobView): Promise<ResultView[]> {
    const out: ResultView[] = [];
    for await (const batch of this.resultBatches(job)) out.push(...batch);
    return out;
  }
}
