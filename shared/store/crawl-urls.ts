// A crawl's seen-set, so no URL is queued twice: one collection a job, `_id` = the SHA-256 of the URL (40 hex
// digits) and `by` = the crawl-map node of the page that queued it. A collection of its own lets the whole set
// go with one drop once the job has ended, where deleting a job's documents from a shared collection would
// read all of it (FerretDB pushes down only `_id` equality). The sweep below drops them; it reads each
// job's projection by `_id`.
import { createHash } from 'node:crypto';
import { type Db, MongoBulkWriteError } from 'mongodb';
import { isFinal, type JobView } from '../reducers/job.js';
import { COLLECTIONS } from './mongo.js';

interface SeenDoc {
  _id: string;
  by: number;
}

const PREFIX = 'crawl_urls_';

/** The collection of one job's seen-set. */
export const seenSetName = (jobId: string) => `${PREFIX}${jobId}`;

const keyOf = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 40);

export class CrawlUrlStore {
  constructor(private readonly db: Db) {}

  private set(jobId: string) {
    return this.db.collection<SeenDoc>(seenSetName(jobId));
  }

  /** Marks each URL as queued by `node`, in one batched insert; answers those some page had marked before. */
  async mark(jobId: string, node: number, urls: readonly string[]): Promise<Set<string>> {
    const before = new Set<string>();
    const unique = [...new Set(urls)];
    if (unique.length === 0) return before;
    try {
      await this.set(jobId).insertMany(
        unique.map((url) => ({ _id: keyOf(url), by: node })),
        { ordered: false },
      );
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      for (const e of errors) {
        if (e.code !== 11000) throw err;
        before.add(unique[e.index] as string);
      }
    }
    return before;
  }

  /** The node that marked the URL (null: none). */
  async markedBy(jobId: string, url: string): Promise<number | null> {
    return (await this.set(jobId).findOne({ _id: keyOf(url) }))?.by ?? null;
  }

  /**
   * Drops the seen-sets of jobs that ended at least `graceMs` ago (no page of theirs runs any more), and
   * says how many it dropped and how many it kept (jobs still running, or not yet projected).
   */
  async sweepEnded(graceMs: number, now = Date.now()): Promise<{ dropped: number; kept: number }> {
    const names = await this.db
      .listCollections({}, { nameOnly: true })
      .map((c) => c.name)
      .toArray();
    const jobs = this.db.collection<JobView & { _id: string }>(COLLECTIONS.jobs);
    let dropped = 0;
    let kept = 0;
    for (const name of names) {
      if (!name.startsWith(PREFIX)) continue;
      const job = await jobs.findOne(
        { _id: name.slice(PREFIX.length) },
        { projection: { status: 1, completed_at: 1 } },
      );
      const ended =
        job !== null &&
        isFinal(job.status) &&
        (job.completed_at === null || Date.parse(job.completed_at) <= now - graceMs);
      if (!ended) {
        kept++;
        continue;
      }
      await this.db.dropCollection(name).catch((err: unknown) => {
        // Dropped meanwhile by another sweep: nothing is left to do.
        if (!(err instanceof Error && /ns not found|does not exist/i.test(err.message))) throw err;
      });
      dropped++;
    }
    return { dropped, kept };
  }
}
