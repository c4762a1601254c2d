// Leases by name, so a periodic task that several processes run (the stranded-job sweep of every API
// process, the content retention sweep of every worker) runs in one of them at a time. One document per
// lease, `_id` = its name: taking it is one conditional update (free, expired, or already ours), and a lost
// race is a duplicate key on the upsert. A holder that dies stops renewing; the lease expires after `ttlMs`
// and another process takes it. The holder renews it on each run, so it keeps the task while it lives.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { COLLECTIONS, isDuplicateKey } from './mongo.js';

interface LeaseDoc {
  _id: string;
  holder: string;
  until: Date;
}

/** This process's name as a lease holder: its pid and a random part (a restarted pid is a new holder). */
export const processHolder = () => `${process.pid}:${randomUUID()}`;

export class Leases {
  constructor(
    private readonly db: Db,
    readonly holder: string = processHolder(),
  ) {}

  private get col() {
    return this.db.collection<LeaseDoc>(COLLECTIONS.leases);
  }

  /** Takes or renews the lease for `ttlMs`; false while another live holder has it. */
  async acquire(name: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    try {
      const doc = await this.col.findOneAndUpdate(
        { _id: name, $or: [{ holder: this.holder }, { until: { $lt: new Date(now) } }] },
        { $set: { holder: this.holder, until: new Date(now + ttlMs) } },
        { upsert: true, returnDocument: 'after' },
      );
      return doc?.holder === this.holder;
    } catch (err) {
      // The lease exists and is another's: the filter missed it and the upsert's insert collided.
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Gives the lease up (on a clean stop), so another process need not wait for it to expire. */
  async release(name: string): Promise<void> {
    await this.col.deleteOne({ _id: name, holder: this.holder });
  }
}
