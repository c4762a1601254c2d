// Writes into one collection from concurrent callers, sent together: while one write is on its way, the
// documents that arrive wait and then go as one command (a group commit). A lone write goes at once, so
// nothing waits that would not have waited anyway; under load (a crawl's pages writing their events and
// stored pages at once) several documents cost one command, one round trip and, on FerretDB, one SQLite
// transaction instead of one each. InsertBatches tells each caller whether its own document went in or was
// already there; ReplaceBatches upserts by `_id`.
import {
  type Collection,
  type Document,
  MongoBulkWriteError,
  type OptionalUnlessRequiredId,
  type WriteError,
} from 'mongodb';
import { isDuplicateKey, retryOnDuplicate } from './mongo.js';

/** Documents sent in one command at most. */
const MAX_BATCH = 64;

interface Waiting<T, R> {
  doc: T;
  done: (result: R) => void;
  failed: (err: unknown) => void;
}

/**
 * The queue both kinds share: a write submitted while none is on its way is sent after this turn (the
 * documents of one call go together); those arriving meanwhile follow in batches of MAX_BATCH.
 */
abstract class GroupCommit<T extends Document & { _id: string }, R> {
  private readonly waiting: Waiting<T, R>[] = [];
  private sending = false;

  constructor(protected readonly collection: () => Collection<T>) {}

  protected submit(doc: T): Promise<R> {
    return new Promise<R>((done, failed) => {
      this.waiting.push({ doc, done, failed });
      if (this.sending) return;
      this.sending = true;
      queueMicrotask(() => void this.send());
    });
  }

  private async send(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.sendBatch(this.waiting.splice(0, MAX_BATCH));
    } finally {
      this.sending = false;
    }
  }

  /** Writes the batch and settles each waiting caller. */
  protected abstract sendBatch(batch: Waiting<T, R>[]): Promise<void>;
}

/** An unordered bulk command's failures by the index of their document (every document was tried). */
function failuresByIndex(err: MongoBulkWriteError): Map<number, WriteError> {
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return new Map(errors.map((e) => [e.index, e]));
}

export class InsertBatches<T extends Document & { _id: string }> extends GroupCommit<T, boolean> {
  /** Inserts the document: true when it went in, false when its `_id` was there already. */
  insert(doc: T): Promise<boolean> {
    return this.submit(doc);
  }

  protected async sendBatch(batch: Waiting<T, boolean>[]): Promise<void> {
    const col = this.collection();
    if (batch.length === 1) {
      const [one] = batch as [Waiting<T, boolean>];
      try {
        await col.insertOne(one.doc as OptionalUnlessRequiredId<T>);
        one.done(true);
      } catch (err) {
        if (isDuplicateKey(err)) one.done(false);
        else one.failed(err);
      }
      return;
    }
    try {
      await col.insertMany(
        batch.map((w) => w.doc as OptionalUnlessRequiredId<T>),
        { ordered: false },
      );
      for (const w of batch) w.done(true);
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) {
        for (const w of batch) w.failed(err);
        return;
      }
      const failures = failuresByIndex(err);
      for (const [i, w] of batch.entries()) {
        const e = failures.get(i);
        if (!e) w.done(true);
        else if (e.code === 11000) w.done(false);
        else w.failed(err);
      }
    }
  }
}

/**
 * Replacements (upserts by `_id`), sent together as one unordered bulk write. Two replacements of one `_id`
 * in a batch end as either, as two concurrent ones would; one that failed in a batch (an upsert race lost
 * to another writer) is sent again on its own, which retries a race and throws what else is wrong.
 */
export class ReplaceBatches<T extends Document & { _id: string }> extends GroupCommit<T, void> {
  replace(doc: T): Promise<void> {
    return this.submit(doc);
  }

  protected async sendBatch(batch: Waiting<T, void>[]): Promise<void> {
    if (batch.length === 1) {
      const [one] = batch as [Waiting<T, void>];
      await this.one(one.doc).then(one.done, one.failed);
      return;
    }
    let failed: ReadonlySet<number>;
    try {
      await this.collection().bulkWrite(
        batch.map(({ doc: { _id, ...replacement } }) => ({
          replaceOne: { filter: { _id } as never, replacement: replacement as never, upsert: true },
        })),
        { ordered: false },
      );
      failed = new Set();
    } catch (err) {
      failed =
        err instanceof MongoBulkWriteError
          ? new Set(failuresByIndex(err).keys())
          : new Set(batch.map((_, i) => i));
    }
    for (const [i, w] of batch.entries()) {
      if (failed.has(i)) this.one(w.doc).then(w.done, w.failed);
      else w.done();
    }
  }

  private async one({ _id, ...replacement }: T): Promise<void> {
    await retryOnDuplicate(() =>
      this.collection().replaceOne({ _id } as never, replacement as never, { upsert: true }),
    );
  }
}
