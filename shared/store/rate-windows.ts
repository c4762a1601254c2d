// Fixed-window request counters shared by every API process through the database, so N processes behind a
// balancer give a tenant its limit once, not N times. One document per key and window, `_id` =
// `<key>:<window number>`; a request costs one round trip (an upserting $inc that returns the count). Ended
// windows are deleted by a periodic sweep (no TTL index: FerretDB has none), so the collection holds about
// one document per active key and sweep interval.
import type { Db } from 'mongodb';
import { COLLECTIONS, retryOnDuplicate } from './mongo.js';

interface RateWindowDoc {
  _id: string;
  count: number;
  /** When the window ends: the sweep deletes windows past it. */
  ends_at: Date;
}

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

export class RateWindows {
  constructor(private readonly db: Db) {}

  private get col() {
    return this.db.collection<RateWindowDoc>(COLLECTIONS.rateWindows);
  }

  /** Counts one request against `key` in the window holding `now`. */
  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowCount> {
    const window = Math.floor(now / windowMs);
    const endsAt = (window + 1) * windowMs;
    // Two processes upserting a new window at once: one inserts, the other's insert is a duplicate key and
    // its retry increments the document the first made.
    const doc = await retryOnDuplicate(() =>
      this.col.findOneAndUpdate(
        { _id: `${key}:${window}` },
        { $inc: { count: 1 }, $setOnInsert: { ends_at: new Date(endsAt) } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    return { count: doc?.count ?? 1, ttlMs: endsAt - now };
  }

  /** Deletes ended windows; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const { deletedCount } = await this.col.deleteMany({ ends_at: { $lt: new Date(now) } });
    return deletedCount;
  }
}
