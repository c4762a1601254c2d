// The budget ledger: one document per account, `job:<job id>` and
// `tenant:<tenant id>:<YYYY-MM>`, holding what was spent and what calls in flight have reserved. A model
// call reserves its worst case first with one atomic $inc (returning the document after it) and is refused
// when spent + reserved then passes the limit; the reservation is taken back, and the actual spend added,
// when the call ends. No transactions: each account is updated on its own, by `_id` only.
// MongoDB applies a $inc atomically; FerretDB v1 over SQLite does not (concurrent findOneAndUpdate calls
// on one document lose updates, measured in test/unit/budget-ledger.test.ts), so this process also runs
// the updates of one account one after another. Several worker processes on FerretDB can still race.
import type { Db } from 'mongodb';
import type { BudgetName } from '../budget.js';
import { COLLECTIONS, retryOnDuplicate } from './mongo.js';
import { OneAtATime } from './one-at-a-time.js';

export interface LedgerDoc {
  _id: string;
  spent_usd: number;
  spent_tokens: number;
  reserved_usd: number;
  reserved_tokens: number;
  updated_at: string;
}

type Counter = 'spent_usd' | 'spent_tokens' | 'reserved_usd' | 'reserved_tokens';

export interface Amount {
  usd: number;
  tokens: number;
}

/** One account a call is charged to, with the limits that apply to it (absent: none, only recorded). */
export interface Account {
  id: string;
  limits: { usd?: { max: number; budget: BudgetName }; tokens?: { max: number; budget: BudgetName } };
}

export interface Refusal {
  budget: BudgetName;
  limit: number;
  /** Spent and reserved by other calls when this one was refused. */
  spent: number;
  reserved: number;
  /** What this call would have reserved. */
  asked: number;
}

/** A call's hold: the accounts reserved on, and those (without limits) only charged when it ends. */
export interface Held {
  accounts: string[];
  amount: Amount;
  recordOnly?: string[];
}

export type Reservation = Held | { refused: Refusal };

/** Float sums of many small costs drift by a few 1e-18: within this they are not "over". */
const EPSILON = 1e-12;

export const jobAccount = (jobId: string) => `job:${jobId}`;
export const tenantAccount = (tenantId: string, at = new Date()) =>
  `tenant:${tenantId}:${at.toISOString().slice(0, 7)}`;

export class BudgetLedger {
  /** One account's updates from this process, one after another (see OneAtATime). */
  private readonly serial = new OneAtATime();
  /** Per account, the settle increments waiting for their turn, as one (see addLater). */
  private readonly combining = new Map<
    string,
    { inc: Partial<Record<Counter, number>>; done: Promise<void> }
  >();

  constructor(private readonly db: Db) {}

  private get col() {
    return this.db.collection<LedgerDoc>(COLLECTIONS.budgets);
  }

  /**
   * Reserves `amount` on every account with a limit in turn; when one would pass a limit, what was reserved
   * is taken back and the refusal names that budget. Concurrent calls may both be refused near the limit,
   * never both admitted past it. An account without limits (a tenant's month without a budget) can refuse
   * nothing: it is not written until the call ends, when its spend is added (one write a call instead of
   * two; a budget set while calls run counts them once they end).
   */
  async reserve(accounts: Account[], amount: Amount): Promise<Reservation> {
    const taken: string[] = [];
    const recordOnly: string[] = [];
    for (const account of accounts) {
      if (!account.limits.usd && !account.limits.tokens) {
        recordOnly.push(account.id);
        continue;
      }
      const doc = await this.add(account.id, { reserved_usd: amount.usd, reserved_tokens: amount.tokens });
      const refused = refusalOf(account, doc, amount);
      if (refused) {
        await this.release({ accounts: [...taken, account.id], amount });
        return { refused };
      }
      taken.push(account.id);
    }
    return { accounts: taken, amount, ...(recordOnly.length > 0 ? { recordOnly } : {}) };
  }

  /**
   * Takes back a reservation and adds what the call actually spent (nothing for a call that failed). Its
   * write joins one still waiting for its turn on the account: calls ending together (a crawl's pages on the
   * tenant's month) cost one write.
   */
  async settle(held: Held, spent: Amount): Promise<void> {
    const used = { spent_usd: spent.usd, spent_tokens: spent.tokens };
    await Promise.all([
      ...held.accounts.map((id) =>
        this.addLater(id, {
          reserved_usd: -held.amount.usd,
          reserved_tokens: -held.amount.tokens,
          ...used,
        }),
      ),
      ...(held.recordOnly ?? []).map((id) =>
        this.addLater(id, { reserved_usd: 0, reserved_tokens: 0, ...used }),
      ),
    ]);
  }

  release(held: Held): Promise<void> {
    return this.settle(held, { usd: 0, tokens: 0 });
  }

  async get(id: string): Promise<LedgerDoc | null> {
    return this.col.findOne({ _id: id });
  }

  private add(id: string, inc: Partial<Record<Counter, number>>): Promise<LedgerDoc> {
    return this.serial.run(id, () => this.write(id, inc));
  }

  /**
   * An increment whose result nobody reads (a settle): added to one still waiting for its turn on the
   * account, if any. Applied at that earlier turn, which is right: its call has ended.
   */
  private addLater(id: string, inc: Partial<Record<Counter, number>>): Promise<void> {
    const waiting = this.combining.get(id);
    if (waiting) {
      for (const [k, v] of Object.entries(inc) as [Counter, number][])
        waiting.inc[k] = (waiting.inc[k] ?? 0) + v;
      return waiting.done;
    }
    const entry = { inc: { ...inc }, done: Promise.resolve() };
    entry.done = this.serial.run(id, async () => {
      this.combining.delete(id); // its turn: later increments wait for the next one
      await this.write(id, entry.inc);
    });
    this.combining.set(id, entry);
    return entry.done;
  }

  private async write(id: string, inc: Partial<Record<Counter, number>>): Promise<LedgerDoc> {
    const doc = await retryOnDuplicate(() =>
      this.col.findOneAndUpdate(
        { _id: id },
        { $inc: inc, $set: { updated_at: new Date().toISOString() } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    if (!doc) throw new Error(`budget ledger ${id}: no document after update`);
    return doc;
  }
}

function refusalOf(account: Account, doc: LedgerDoc, amount: Amount): Refusal | null {
  const checks = [
    {
      limit: account.limits.usd,
      spent: doc.spent_usd ?? 0,
      reserved: doc.reserved_usd ?? 0,
      asked: amount.usd,
    },
    {
      limit: account.limits.tokens,
      spent: doc.spent_tokens ?? 0,
      reserved: doc.reserved_tokens ?? 0,
      asked: amount.tokens,
    },
  ];
  for (const { limit, spent, reserved, asked } of checks) {
    if (!limit || spent + reserved <= limit.max + EPSILON) continue;
    return { budget: limit.budget, limit: limit.max, spent, reserved: reserved - asked, asked };
  }
  return null;
}
