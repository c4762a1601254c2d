// MongoDB connection and indexes. Works on a real MongoDB and on FerretDB v1 over SQLite, which has no
// transactions or change streams and pushes down only `_id` equality: any other filter reads the whole
// collection. So every hot path (API key lookup, job reads, event log, results, job lists) is a lookup by a
// composed `_id`, and every write is a single-document operation.
import {
  type CreateIndexesOptions,
  type Db,
  type IndexSpecification,
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { migrateStore } from './migrations.js';

export const COLLECTIONS = {
  /** `_id` = `<job id>:<seq, 8 digits>`; seqs are gap-free per job (see shared/events.ts). */
  events: 'job_events',
  /** `_id` = job id. Projection of the job's events. */
  jobs: 'jobs',
  /**
   * `_id` = `<job id>:<last_seq, 8 digits>`: the job document that replaced the one at that last_seq. Taking
   * this `_id` is what lets one projector advance a job from a version (a conditional replace would scan).
   */
  jobVersions: 'job_versions',
  /** `_id` = `<job id>:<chunk>`; the page results of RESULTS_PER_CHUNK consecutive seqs. Projection. */
  results: 'results',
  /** `_id` = `<job id>:<chunk>`; crawl-map entries of CRAWL_MAP_PER_CHUNK consecutive nodes. Projection. */
  crawlMap: 'crawl_map',
  // A crawl's seen-set is a collection of its own: `crawl_urls_<job id>` (crawl-urls.ts).
  /**
   * `_id` = `<job id>:<chunk number>`: pages a crawl queued but had not started when it continued as new,
   * when they were too many to carry in the workflow's input (see workflows/crawl.ts). Dropped at its end.
   */
  crawlFrontier: 'crawl_frontier',
  /** `_id` = `<tenant id>:<tenant job number, 10 digits>` → job id, for newest-first job lists. Projection. */
  tenantJobs: 'tenant_jobs',
  /** `_id` = tenant id: the tenant's job counter and the numbers of its pending jobs. */
  tenantCounters: 'tenant_counters',
  /** `_id` = an id made by the workflow; pages' fetched and cleaned contents, deleted after PAGE_RETENTION_DAYS. */
  contents: 'contents',
  /**
   * `_id` = `<YYYY-MM-DD>`: how many contents were numbered on that day (created_at) and how many of them the
   * retention sweep has deleted; `_id` = `sweep`: the first day the sweep has not finished.
   */
  contentDays: 'content_days',
  /** `_id` = `<YYYY-MM-DD>:<n, 8 digits>` → a content's id: what the retention sweep walks, by `_id`. */
  contentIndex: 'content_index',
  tenants: 'tenants',
  /** `_id` = SHA-256 of the key. */
  apiKeys: 'api_keys',
  /** `_id` = tenant id: the public id → `_id` (hash) of each of the tenant's API keys (lists, deletes). */
  apiKeyIndex: 'api_key_index',
  /** `_id` = `<tenant id>:<provider>`; the key sealed with SECRETS_KEY. */
  llmKeys: 'llm_keys',
  /** `_id` = tenant id; the ordered fallback chain. */
  llmChains: 'llm_chains',
  /** `_id` = job id; a sealed one-job key from a request's llm_config. */
  jobSecrets: 'job_secrets',
  /** `_id` = `<job id>:<page id>:<attempt>`; model request/response captures (capture_debug). */
  debugCaptures: 'debug_captures',
  /** `_id` = job id; the ids of the job's captures in order. */
  debugIndex: 'debug_capture_index',
  /** `_id` = webhook id; a tenant's saved webhooks (secret sealed), listed through webhook_index. */
  webhooks: 'webhooks',
  /** `_id` = tenant id: the ids of the tenant's saved webhooks (read for every job the tenant starts). */
  webhookIndex: 'webhook_index',
  /** `_id` = job id; the job's webhook destinations resolved when it was created (secrets sealed). */
  jobWebhooks: 'job_webhooks',
  /** `_id` = delivery id; one delivery of one event to one destination, with every attempt. */
  webhookDeliveries: 'webhook_deliveries',
  /** `_id` = `job:<job id>` or `webhook:<webhook id>`; the delivery ids in creation order. */
  webhookDeliveryIndex: 'webhook_delivery_index',
  /** `_id` = `<tenant id>:<site id>`; a stored site. */
  sites: 'sites',
  /** `_id` = tenant id; the tenant's site ids in creation order. */
  siteIndex: 'site_index',
  /** `_id` = `<tenant id>:<site id>`; a stored site's session (cookies, headers, secrets sealed). */
  siteSessions: 'site_sessions',
  /** `_id` = `<tenant id>:<site id>:<updated_at>`: the login that replaced that version of the session. */
  siteSessionLogins: 'site_session_logins',
  /** `_id` = schema id; a stored schema (public ones are read by other tenants, so not tenant-composed). */
  storedSchemas: 'stored_schemas',
  /** `_id` = `tenant:<tenant id>` or `public`; schema id → the fields schema lists filter and sort on. */
  schemaIndex: 'schema_index',
  /**
   * `_id` = `<shape id>:<template key>`: one page template's learned extractor
   * (shared/store/learned-extractors.ts).
   */
  learnedExtractors: 'learned_extractors',
  /**
   * `_id` = `<tenant id>:<hash of scope, schema, URL shape>` (the shape id): the shape's templates with their
   * structure sketches, what a page is matched against (shared/store/learned-index.ts).
   */
  learnedShapes: 'learned_shapes',
  /** `_id` = `<tenant id>:<hash of scope>`: a site's (or job's) template ids, oldest first. */
  learnedScopes: 'learned_scopes',
  /** `_id` = `<template id>:<generation>`: how many pages were asked of the template's extractor. */
  learnedCounters: 'learned_counters',
  /** `_id` = `<template id>:<generation>:<n>`: a page the extractor answered, re-done if a later check fails. */
  learnedAnswers: 'learned_answers',
  /** `_id` = a one-time migration's name, once it has run on this database (shared/store/migrations.ts). */
  migrations: 'store_migrations',
  /**
   * `_id` = `job:<job id>` or `tenant:<tenant id>:<YYYY-MM>`: model spend and in-flight reservations
   * against a job's max_cost_usd / max_tokens and a tenant's monthly budget (shared/store/budgets.ts).
   */
  budgets: 'budgets',
  /** `_id` = `<key>:<window number>`: requests counted in one rate-limit window (shared/store/rate-windows.ts). */
  rateWindows: 'rate_windows',
  /** `_id` = a lease's name: which process runs a periodic task now (shared/store/leases.ts). */
  leases: 'leases',
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

/** Indexes for the rare non-`_id` queries (management lists, clean-up, unique names). */
export async function ensureIndexes(db: Db): Promise<void> {
  const c = (name: string) => db.collection(name);
  // Several processes start at once (N workers, N APIs) and each ensures the indexes: one that lost the
  // race to create an index finds it made by another.
  const index = async (collection: string, spec: IndexSpecification, options: CreateIndexesOptions) => {
    await c(collection)
      .createIndex(spec, options)
      .catch(async (err: unknown) => {
        const made = await c(collection)
          .indexes()
          .catch(() => []);
        if (!made.some((i) => i.name === options.name)) throw err;
      });
  };
  // Contents had an index on job_id that no query used (FerretDB uses none but `_id`'s) and every page's
  // write paid for: SQLite computes an index expression over the whole document, up to megabytes of HTML.
  await c(COLLECTIONS.contents)
    .dropIndex('job')
    .catch(() => undefined);
  await index(COLLECTIONS.apiKeys, { tenant_id: 1 }, { name: 'tenant' });
  await index(COLLECTIONS.apiKeys, { id: 1 }, { unique: true, name: 'public_id' });
  await index(COLLECTIONS.tenants, { name: 1 }, { unique: true, name: 'name' });
  await index(COLLECTIONS.llmKeys, { tenant_id: 1 }, { name: 'tenant' });
  await index(COLLECTIONS.webhooks, { tenant_id: 1, name: 1 }, { unique: true, name: 'tenant_name' });
  // The sweep of ended rate-limit windows (a plain index: FerretDB has no TTL index).
  await index(COLLECTIONS.rateWindows, { ends_at: 1 }, { name: 'ends_at' });
  // Two processes upserting the same document at once may both try the insert: the loser's duplicate key means
  // the other got there first, and the migrations are idempotent, so they run again.
  await retryOnDuplicate(() => migrateStore(db, COLLECTIONS));
}

/** MongoDB's codes of a server that cannot answer now (stepping down, shutting down, unreachable). */
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 10107, 11600, 11602, 13435, 13436]);

/**
 * Whether an error says the database is out of reach for now, not that the request was wrong: the driver
 * lost or could not find the server, MongoDB is electing or shutting down, or FerretDB could not reach its
 * PostgreSQL (its InternalError, code 1, naming the connection). The API answers these 503 with Retry-After.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (err instanceof MongoError && err.hasErrorLabel('RetryableWriteError')) return true;
  if (!(err instanceof MongoServerError)) return false;
  if (typeof err.code === 'number' && UNAVAILABLE_CODES.has(err.code)) return true;
  return (
    err.code === 1 &&
    /failed to connect|connection refused|the database system is (shutting down|starting up)|terminating connection/i.test(
      err.message,
    )
  );
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

export const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Runs an upsert again when a concurrent upsert of the same `_id` won the insert (both MongoDB and FerretDB). */
export async function retryOnDuplicate<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isDuplicateKey(err) || i >= attempts) throw err;
    }
  }
}
