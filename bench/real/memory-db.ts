// An in-memory stand-in for the MongoDB database the learned-extractor stores use, so bench:real:learned
// drives the crawl's learner (activities/reading/learned/learner.ts) without a stack. It answers the few
// calls those stores make — by `_id` with $inc, $set, $setOnInsert, $push, $pull, and deletes in bulk — and
// counts every filter that is not exactly `{ _id: <string> }` (FerretDB answers those by scanning), so the
// bench shows that reading a page's extractor stays a keyed read however many templates are stored.
import { type Db, MongoServerError } from 'mongodb';

type Doc = Record<string, unknown> & { _id: string };
type Filter = Record<string, unknown>;

export interface MemoryDb {
  db: Db;
  /** Filtered calls, and those whose filter was not `{ _id: <string> }`. */
  reads: { keyed: number; scans: string[] };
  /** Documents per collection. */
  sizes(): Record<string, number>;
}

const clone = <T>(v: T): T => structuredClone(v);

/** As the driver throws it (the stores tell a duplicate key by its class and code). */
function duplicate(): Error {
  return new MongoServerError({ message: 'E11000 duplicate key', code: 11000 });
}

function matches(doc: unknown, query: Filter): boolean {
  if (typeof doc !== 'object' || doc === null) return false;
  return Object.entries(query).every(([k, v]) => (doc as Record<string, unknown>)[k] === v);
}

function update(doc: Doc, change: Record<string, Record<string, unknown>>, inserted: boolean): void {
  for (const [op, fields] of Object.entries(change))
    for (const [k, v] of Object.entries(fields)) {
      if (op === '$set' || (op === '$setOnInsert' && inserted)) doc[k] = clone(v);
      else if (op === '$inc') doc[k] = ((doc[k] as number | undefined) ?? 0) + (v as number);
      else if (op === '$push') doc[k] = [...((doc[k] as unknown[] | undefined) ?? []), clone(v)];
      else if (op === '$pull')
        doc[k] = ((doc[k] as unknown[] | undefined) ?? []).filter((x) => !matches(x, v as Filter));
      else if (op !== '$setOnInsert') throw new Error(`memory-db: ${op} is not supported`);
    }
}

export function memoryDb(): MemoryDb {
  const collections = new Map<string, Map<string, Doc>>();
  const reads = { keyed: 0, scans: [] as string[] };
  const idOf = (name: string, filter: Filter): string => {
    const keys = Object.keys(filter);
    if (keys.length === 1 && typeof filter._id === 'string') reads.keyed++;
    else reads.scans.push(`${name} ${JSON.stringify(filter)}`);
    if (typeof filter._id !== 'string') throw new Error(`memory-db: a filter not by _id on ${name}`);
    return filter._id;
  };
  const collection = (name: string) => {
    const store = collections.get(name) ?? new Map<string, Doc>();
    collections.set(name, store);
    return {
      async findOne(filter: Filter) {
        const doc = store.get(idOf(name, filter));
        return doc ? clone(doc) : null;
      },
      async insertOne(doc: Doc) {
        if (store.has(doc._id)) throw duplicate();
        store.set(doc._id, clone(doc));
        return { acknowledged: true, insertedId: doc._id };
      },
      async replaceOne(filter: Filter, doc: Record<string, unknown>, opts?: { upsert?: boolean }) {
        const id = idOf(name, filter);
        if (!store.has(id) && !opts?.upsert) return { matchedCount: 0 };
        store.set(id, { ...clone(doc), _id: id });
        return { matchedCount: 1 };
      },
      async updateOne(filter: Filter, change: Record<string, Record<string, unknown>>) {
        const doc = store.get(idOf(name, filter));
        if (doc) update(doc, change, false);
        return { matchedCount: doc ? 1 : 0 };
      },
      async findOneAndUpdate(
        filter: Filter,
        change: Record<string, Record<string, unknown>>,
        opts?: { upsert?: boolean },
      ) {
        const id = idOf(name, filter);
        let doc = store.get(id);
        const inserted = !doc;
        if (!doc) {
          if (!opts?.upsert) return null;
          doc = { _id: id };
          store.set(id, doc);
        }
        update(doc, change, inserted);
        return clone(doc);
      },
      async deleteOne(filter: Filter) {
        return { deletedCount: store.delete(idOf(name, filter)) ? 1 : 0 };
      },
      async insertMany(docs: Doc[]) {
        for (const doc of docs) await this.insertOne(doc);
        return { acknowledged: true, insertedCount: docs.length };
      },
      /** Deletes by `_id` only (the learned stores' bulk deletes). */
      async bulkWrite(ops: { deleteOne?: { filter: Filter } }[]) {
        let deletedCount = 0;
        for (const op of ops) {
          if (!op.deleteOne) throw new Error('memory-db: bulkWrite takes deleteOne only');
          deletedCount += (await this.deleteOne(op.deleteOne.filter)).deletedCount;
        }
        return { deletedCount };
      },
    };
  };
  const handles = new Map<string, ReturnType<typeof collection>>();
  const db = {
    collection(name: string) {
      const c = handles.get(name) ?? collection(name);
      handles.set(name, c);
      return c;
    },
  };
  return {
    db: db as unknown as Db,
    reads,
    sizes: () => Object.fromEntries([...collections].map(([name, docs]) => [name, docs.size])),
  };
}
