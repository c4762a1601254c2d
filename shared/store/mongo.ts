// MongoDB connection and indexes. Works on a real MongoDB and on FerretDB (no transactions, no change
// streams, no TTL or partial indexes), so every write is a single-document operation.
import { type Db, MongoClient, MongoServerError } from 'mongodb';

export const COLLECTIONS = {
  events: 'job_events',
  jobs: 'jobs',
  results: 'results',
  contents: 'contents',
  tenants: 'tenants',
  apiKeys: 'api_keys',
} as const;

export interface Mongo {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

export async function connectMongo(uri: string, dbName: string): Promise<Mongo> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, maxPoolSize: 20 });
  await client.connect();
  const db = client.db(dbName);
  return { client, db, close: () => client.close() };
}

export async function ensureIndexes(db: Db): Promise<void> {
  const c = (name: string) => db.collection(name);
  await c(COLLECTIONS.events).createIndex({ job_id: 1, seq: 1 }, { unique: true, name: 'job_seq' });
  await c(COLLECTIONS.jobs).createIndex({ tenant_id: 1, created_at: -1 }, { name: 'tenant_created' });
  await c(COLLECTIONS.jobs).createIndex(
    { tenant_id: 1, status: 1, created_at: 1 },
    { name: 'tenant_status' },
  );
  await c(COLLECTIONS.jobs).createIndex({ tenant_id: 1, idempotency_key: 1 }, { name: 'tenant_idem' });
  await c(COLLECTIONS.results).createIndex({ job_id: 1, seq: 1 }, { name: 'job_seq' });
  await c(COLLECTIONS.contents).createIndex({ job_id: 1 }, { name: 'job' });
  await c(COLLECTIONS.apiKeys).createIndex({ hash: 1 }, { unique: true, name: 'hash' });
  await c(COLLECTIONS.apiKeys).createIndex({ tenant_id: 1 }, { name: 'tenant' });
  await c(COLLECTIONS.tenants).createIndex({ name: 1 }, { unique: true, name: 'name' });
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}
