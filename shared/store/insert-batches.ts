// Inserts into one collection from concurrent callers, sent together: while one insert is on its way, the
// documents that arrive wait and then go as one insertMany (a group commit). A lone insert goes at once,
// so nothing waits that would not have waited anyway; under load (a crawl's pages writing their events and
// stored pages at once) several documents cost one command, one round trip and, on FerretDB, one SQLite
// transaction instead of one each. Each caller learns whether its own document went in or was already there.
import { type Collection, type Document, MongoBulkWriteError, type OptionalUnlessRequiredId } from 'mongodb';
import { isDuplicateKey, retryOnDuplicate } from './mongo.js';

/** Documents sent in one insertMany at most. */
const MAX_BATCH = 64;

interface Waiting<T> {
  doc: T;
  done: (inserted: boolean) => void;
  failed: (err: unknown) => void;
}

export class InsertBatches<T extends Document & { _id: string }> {
  private readonly waiting: Waiting<T>[] = [];
  private sending = false;

  constructor(private readonly collection: () => Collection<T>) {}

  /** Inserts the document: true when it went in, false when its `_id` was there already. */
  insert(doc: T): Promise<boolean> {
    return new Promise<boolean>((done, failed) => {
      this.waiting.push({ doc, done, failed });
      if (this.sending) return;
      // Sent after this turn: documents inserted together (one append's events) go as one batch.
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

  private async sendBatch(batch: Waiting<T>[]): Promise<void> {
    const col = this.collection();
    if (batch.length === 1) {
      const [one] = batch as [Waiting<T>];
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
      // Unordered: every document was tried; the errors name theirs by index.
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      const byIndex = new Map(errors.map((e) => [e.index, e]));
      for (const [i, w] of batch.entries()) {
        const e = byIndex.get(i);
        if (!e) w.done(true);
        else if (e.code === 11000) w.done(false);
        else w.failed(err);
      }
    }
  }
}

/**
 * Replacements (upserts by `_id`) into one collection from concurrent callers, sent together as one
 * unordered bulk write the same way. Two replacements of one `_id` in a batch end as either, as two
 * concurrent ones would; one that lost an upsert race to another writer is sent again on its own.
 */
export class ReplaceBatches<T extends Document & { _id: string }> {
  private readonly waiting: { doc: T; done: () => void; failed: (err: unknown) => void }[] = [];
  private sending = false;

  constructor(private readonly collection: () => Collection<T>) {}

  replace(doc: T): Promise<void> {
    return new Promise<void>((done, failed) => {
      this.waiting.push({ doc, done, failed });
      if (this.sending) return;
      this.sending = true;
      queueMicrotask(() => void this.send());
    });
  }

  private async send(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        const failures = await this.write(batch.map((w) => w.doc));
        for (const [i, w] of batch.entries()) {
          const err = failures.get(i);
          if (err === undefined) w.done();
          else this.one(w.doc).then(w.done, w.failed);
        }
      }
    } finally {
      this.sending = false;
    }
  }

  /** Writes the batch; the failed ones by index (each is then tried alone, which throws what is wrong). */
  private async write(docs: T[]): Promise<Map<number, unknown>> {
    if (docs.length === 1) {
      try {
        await this.one(docs[0] as T);
        return new Map();
      } catch (err) {
        return new Map([[0, err]]);
      }
    }
    try {
      await this.collection().bulkWrite(
        docs.map(({ _id, ...replacement }) => ({
          replaceOne: { filter: { _id } as never, replacement: replacement as never, upsert: true },
        })),
        { ordered: false },
      );
      return new Map();
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) return new Map(docs.map((_, i) => [i, err]));
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      return new Map(errors.map((e) => [e.index, e]));
    }
  }

  private async one({ _id, ...replacement }: T): Promise<void> {
    await retryOnDuplicate(() =>
      this.collection().replaceOne({ _id } as never, replacement as never, { upsert: true }),
    );
  }
}
