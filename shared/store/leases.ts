// Leases by name, so a periodic task that several processes run (the stranded-job sweep of every API
// process, the content retention sweep of every worker) runs in one of them at a time. One document per
// lease, `_id` = its name, holding its holder and the time it expires. A holder that dies stops renewing; the lease expires after `ttlMs`
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

  /**
   * Takes or renews the lease for `ttlMs`; false while another live holder has it. A read, then a
   * compare-and-set on what was read (or an insert when there was none): two processes racing for a free
   * lease cannot both win, and a lease held by another costs one read.
   */
  async acquire(name: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const current = await this.col.findOne({ _id: name });
    if (current && current.holder !== this.holder && current.until.getTime() > now) return false;
    const next = { holder: this.holder, until: new Date(now + ttlMs) };
    if (!current) {
      try {
        await this.col.insertOne({ _id: name, ...next });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false; // another process took it first
        throw err;
      }
    }
    const { modifiedCount } = await this.col.updateOne(
      { _id: name, holder: current.holder, until: current.until },
      { $set: next },
    );
    return modifiedCount === 1;
  }

  /** Gives the lease up (on a clean stop), so another process need not wait for it to expire. */
  async release(name: string): Promise<void> {
    await this.col.deleteOne({ _id: name, holder: this.holder });
  }
}
