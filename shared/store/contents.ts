// Page content travels between activities by reference: stored here, passed through workflows as an id.
// Contents are kept PAGE_RETENTION_DAYS: each is numbered within the day it was created, so the retention
// sweep walks old days by `_id` (FerretDB has no TTL index, and a filter on created_at would read every
// page ever stored). The page store (pages.ts) numbers its pages in the same days, so one sweep serves both.

import type { Db } from 'mongodb';
import type { ContentFormat } from '../cleaners.js';
import { CategorizedError } from '../errors.js';
import type { StructuredItem } from '../structured-data.js';
import { InsertBatches } from './insert-batches.js';
import { COLLECTIONS, isDuplicateKey, pad, retryOnDuplicate } from './mongo.js';
import { type PageRefs, PageStore } from './pages.js';

export interface ContentDoc {
  _id: string;
  job_id: string;
  /** A screenshot's body is its PNG in base64 (screenshots.ts). */
  kind: 'raw' | 'cleaned' | 'screenshot';
  url: string;
  final_url: string;
  content_type: string;
  status_code: number;
  body: string;
  /** Cleaned pages: the raw page's structured data, when the job reads it. */
  structured?: StructuredItem[];
  /** Cleaned pages: the format the cleaner chain produced (the prompt names it). */
  format?: ContentFormat;
  created_at: string;
}

interface DayDoc {
  _id: string;
  /** Numbers handed out (proposals: the number is taken by inserting its index entry). */
  count: number;
  /** Numbers 1..swept are deleted. */
  swept?: number;
  /** On the `sweep` document: the first day not finished. */
  next_day?: string;
  /** On the `legacy` document: when its pass was leased (ms), and whether it finished. */
  leased_at?: number;
  done?: boolean;
}

export interface SweepResult {
  deleted: number;
  /** False when the run stopped at its limit with old contents left: run it again soon. */
  done: boolean;
}

const DAY_MS = 86_400_000;
const SWEEP_STATE = 'sweep';
/** The one-off numbering of contents stored before they were numbered. */
const LEGACY_STATE = 'legacy';
const LEGACY_LEASE_MS = 3_600_000;
/** How far back the first sweep of a database looks for days with contents. */
const FIRST_SWEEP_DAYS = 400;
const SWEEP_PARALLEL = 16;
/**
 * Numbers a process takes at once for pages (one counter write per block instead of one per page). Numbers
 * of a block left unused are gaps the sweep passes over; numbers past the counter are found by probing.
 */
const PAGE_BLOCK = 64;

/** A day-index entry: a content's id, or what a stored page's write left (pages.ts). */
interface IndexEntry {
  _id: string;
  content_id?: string;
  page?: PageRefs;
}

export const contentIndexKey = (day: string, n: number) => `${day}:${pad(n, 8)}`;
const dayOf = (iso: string) =>
  (Number.isNaN(Date.parse(iso)) ? new Date() : new Date(iso)).toISOString().slice(0, 10);
const nextDay = (day: string) => new Date(Date.parse(day) + DAY_MS).toISOString().slice(0, 10);

export class ContentStore {
  /** This process's block of numbers for page entries, per day. */
  private readonly blocks = new Map<string, { next: number; end: number }>();
  /** The block being taken, if any (see numberPage). */
  private taking: Promise<void> | null = null;
  private pageStore?: PageStore;
  /** Concurrent pages' index entries go in together (insert-batches.ts). */
  private readonly pageEntries = new InsertBatches<IndexEntry>(() => this.index);

  constructor(private readonly db: Db) {}

  /** What the sweep deletes a page entry with (built on first use: the worker's sweep makes its own store). */
  private get pages() {
    this.pageStore ??= new PageStore(this.db, this);
    return this.pageStore;
  }

  private get col() {
    return this.db.collection<ContentDoc>(COLLECTIONS.contents);
  }
  private get days() {
    return this.db.collection<DayDoc>(COLLECTIONS.contentDays);
  }
  private get index() {
    return this.db.collection<IndexEntry>(COLLECTIONS.contentIndex);
  }

  /** Idempotent: the id is made by the workflow, so an activity retry overwrites its own earlier write. */
  async put(doc: ContentDoc): Promise<void> {
    await this.col.replaceOne({ _id: doc._id }, doc, { upsert: true });
    await this.number(doc._id, dayOf(doc.created_at));
  }

  /** A missing content is a clear, final failure of the page, not an unknown error retried in vain. */
  async get(id: string): Promise<ContentDoc> {
    const doc = await this.col.findOne({ _id: id });
    if (!doc) {
      throw new CategorizedError(
        'content_expired',
        `the page content ${id} is no longer stored (contents are kept PAGE_RETENTION_DAYS): fetch the page again`,
      );
    }
    return doc;
  }

  /**
   * Gives the content the next number of its day. The counter's `$inc` only proposes a number (FerretDB
   * can lose concurrent increments); the number is taken by inserting its index entry, unique on any backend.
   * A retried put numbers its content again: the sweep then deletes it twice, harmlessly.
   */
  private async number(contentId: string, day: string): Promise<void> {
    const counter = await retryOnDuplicate(() =>
      this.days.findOneAndUpdate(
        { _id: day },
        { $inc: { count: 1 } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    const proposed = counter?.count ?? 1;
    for (let n = proposed; ; n++) {
      try {
        await this.index.insertOne({ _id: contentIndexKey(day, n), content_id: contentId });
      } catch (err) {
        if (isDuplicateKey(err)) continue;
        throw err;
      }
      if (n !== proposed) await this.days.updateOne({ _id: day }, { $max: { count: n } });
      return;
    }
  }

  /**
   * Numbers a stored page's entry on `day`, from this process's block of the day's numbers: one insert per
   * page, and one counter update per PAGE_BLOCK pages. A number taken by another process (a lost `$inc` on
   * FerretDB gave two processes one block) is skipped.
   */
  async numberPage(day: string, page: PageRefs): Promise<void> {
    for (;;) {
      const block = this.blocks.get(day);
      if (!block || block.next > block.end) {
        // One block taken at a time: pages numbered together (a crawl batch's) wait for it, not each its own.
        this.taking ??= this.takeBlock(day).finally(() => {
          this.taking = null;
        });
        await this.taking;
        continue;
      }
      const n = block.next++;
      if (await this.pageEntries.insert({ _id: contentIndexKey(day, n), page })) return;
    }
  }

  private async takeBlock(day: string): Promise<void> {
    const counter = await retryOnDuplicate(() =>
      this.days.findOneAndUpdate(
        { _id: day },
        { $inc: { count: PAGE_BLOCK } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    const end = counter?.count ?? PAGE_BLOCK;
    this.blocks.clear(); // only today's (or this moment's) day is written to
    this.blocks.set(day, { next: end - PAGE_BLOCK + 1, end });
  }

  /**
   * Numbers the contents stored before contents were numbered (a database from before retention), once per
   * database, so the sweep finds them too. One pass over the collection (FerretDB cannot range over `_id`
   * cheaply, so it is not split into runs); a content numbered twice is deleted twice, harmlessly. One process
   * at a time: the pass is leased, and a lease an hour old (its process died) is taken over.
   */
  async numberLegacy(): Promise<number> {
    const now = Date.now();
    const lease = await this.days.findOne({ _id: LEGACY_STATE });
    if (lease?.done || (lease && now - (lease.leased_at ?? 0) < LEGACY_LEASE_MS)) return 0;
    const taken = await this.days
      .updateOne(
        { _id: LEGACY_STATE, ...(lease ? { leased_at: lease.leased_at } : {}) },
        { $set: { leased_at: now } },
        { upsert: !lease },
      )
      .catch((err: unknown) => (isDuplicateKey(err) ? null : Promise.reject(err)));
    if (!taken || (taken.modifiedCount === 0 && taken.upsertedCount === 0)) return 0;
    let numbered = 0;
    const cursor = this.col.find({}, { projection: { _id: 1, created_at: 1 }, batchSize: 1000 });
    for await (const doc of cursor) {
      await this.number(doc._id, dayOf(doc.created_at));
      numbered++;
    }
    await this.days.updateOne({ _id: LEGACY_STATE }, { $set: { done: true } });
    return numbered;
  }

  /**
   * Deletes the contents of the days before `olderThan`'s day, oldest first, at most `limit` in one run
   * (results, projections and events are not touched). Safe to run from several processes at once.
   */
  async sweepExpired(olderThan: Date, limit = 2000): Promise<SweepResult> {
    const cutoff = olderThan.toISOString().slice(0, 10);
    const state = await this.days.findOne({ _id: SWEEP_STATE });
    let day =
      state?.next_day ?? dayOf(new Date(olderThan.getTime() - FIRST_SWEEP_DAYS * DAY_MS).toISOString());
    let deleted = 0;
    // The state moves past days without contents only with the next day swept or when the run ends (a
    // store's first sweep reads FIRST_SWEEP_DAYS days, most of them empty): one write, not one a day. A run
    // that stops at its limit leaves it after the last day swept; the next reads the empty days after it again.
    let stateAt = state?.next_day;
    const moveState = (next: string) =>
      next === stateAt
        ? Promise.resolve()
        : retryOnDuplicate(() =>
            this.days.updateOne({ _id: SWEEP_STATE }, { $set: { next_day: next } }, { upsert: true }),
          ).then(() => {
            stateAt = next;
          });
    for (; day < cutoff; day = nextDay(day)) {
      const counter = await this.days.findOne({ _id: day });
      if (!counter) continue;
      let swept = counter.swept ?? 0;
      // A number taken past the counter (its $max lost to a concurrent update) is found by probing, a
      // page block's length ahead (numbers of a block may be left unused).
      const count = await this.probeEnd(day, counter.count);
      while (swept < count) {
        if (deleted >= limit) return { deleted, done: false };
        const numbers = Array.from(
          { length: Math.min(SWEEP_PARALLEL, count - swept) },
          (_, i) => swept + i + 1,
        );
        await Promise.all(numbers.map((n) => this.deleteNumbered(day, n)));
        swept += numbers.length;
        deleted += numbers.length;
        await this.days.updateOne({ _id: day }, { $max: { swept } });
      }
      await this.days.deleteOne({ _id: day });
      await moveState(nextDay(day));
    }
    await moveState(day);
    return { deleted, done: true };
  }

  /** The last number taken on `day`: past `count`, while any of the next PAGE_BLOCK numbers is taken. */
  private async probeEnd(day: string, count: number): Promise<number> {
    for (;;) {
      const ahead = Array.from({ length: PAGE_BLOCK }, (_, i) => count + i + 1);
      const found = await Promise.all(ahead.map((n) => this.index.findOne({ _id: contentIndexKey(day, n) })));
      const last = found.findLastIndex((entry) => entry !== null);
      if (last < 0) return count;
      count += last + 1;
    }
  }

  private async deleteNumbered(day: string, n: number) {
    const entry = await this.index.findOne({ _id: contentIndexKey(day, n) });
    if (entry?.content_id) await this.col.deleteOne({ _id: entry.content_id });
    if (entry?.page) await this.pages.expire(entry.page, day);
    await this.index.deleteOne({ _id: contentIndexKey(day, n) });
  }
}
