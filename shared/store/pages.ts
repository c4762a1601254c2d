// The page store: every page a job fetched (extract and crawl), so later jobs can reuse it — a cache with a
// max age, re-extraction and retries without a fetch. Three collections, each read by `_id` only:
//   page_records   `<job id>:<page id>`: what the fetch returned (URL, final URL, status, the headers that
//                  matter, mode, time) and which body it got;
//   page_bodies    `<tenant id>:<sha256 of the body>:<chunk>`: the body in chunks, stored once per tenant (the
//                  tenant is part of the address, so no tenant learns of another's pages by deduplication);
//   page_latest    `<tenant id>:<sha256 of the normalised URL>`: the tenant's latest fetch of a URL (the cache).
// Retention (PAGE_RETENTION_DAYS) reuses the contents' day numbering (contents.ts): each write numbers one
// entry naming its record, its latest pointer and, when the body was first stored or first used that day,
// the body. A body and a pointer carry the day of their last use, and the sweep deletes them only when that
// day is swept, so a body shared by several records lives as long as the newest of them.
import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { normalizePageUrl } from '../crawl/links.js';
import { CategorizedError } from '../errors.js';
import type { FetchMode, ResolvedFetchMode } from '../schemas/common.js';
import { InsertBatches, ReplaceBatches } from './insert-batches.js';
import { isDuplicateKey } from './mongo.js';

export const PAGE_COLLECTIONS = {
  records: 'page_records',
  bodies: 'page_bodies',
  latest: 'page_latest',
} as const;

/** Characters per body chunk: at most 4 MB of UTF-8, far below MongoDB's 16 MB document limit. */
export const BODY_CHUNK_CHARS = 1 << 20;
/** Bodies whose day this process knows (skips a write per page for bodies it stored or touched today). */
const KNOWN_BODIES_MAX = 20_000;

export type StoredFetchMode = ResolvedFetchMode;

/** A fetched page as the store keeps it (the body's reference, not the body). */
export interface PageMeta {
  url: string;
  final_url: string;
  status: number;
  content_type: string;
  last_modified?: string;
  etag?: string;
  fetch_mode: StoredFetchMode;
  bytes: number;
  fetched_at: string;
  body_id: string;
  chunks: number;
}

interface PageRecordDoc extends PageMeta {
  _id: string;
  tenant_id: string;
  job_id: string;
  page_id: string;
  /** The page was not fetched for this job: it came from the cache or from an earlier job. */
  reused?: true;
}

interface LatestDoc extends PageMeta {
  _id: string;
  /** The day it was last written: the sweep deletes it only when this day is swept. */
  day: string;
}

interface BodyChunkDoc {
  _id: string;
  data: string;
  /** Chunk 0 only: the day the body was last used by a page record. */
  day?: string;
}

/** What one numbered entry of the day index names (see contents.ts). */
export interface PageRefs {
  record: string;
  latest?: string;
  body?: { id: string; chunks: number };
}

/**
 * The day index the page store numbers its entries in: the content store's (contents.ts), whose
 * retention sweep hands each expired entry back to expire().
 */
export interface PageDayIndex {
  numberPage(day: string, page: PageRefs): Promise<void>;
}

/** A stored page with its body, as a fetch would have returned it. */
export interface StoredPage extends PageMeta {
  body: string;
  headers: Record<string, string>;
}

export interface NewPage {
  tenantId: string;
  jobId: string;
  pageId: string;
  url: string;
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  contentType: string;
  fetchMode: StoredFetchMode;
  body: string;
  bytes: number;
  fetchedAt: string;
  /**
   * false: the content is not the URL's (a rendered page's scripts took it to another origin), so it is kept as
   * the job's page only, never as the tenant's latest fetch of the URL (max_age does not find it).
   */
  latest?: boolean;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const dayOf = (iso: string) => iso.slice(0, 10);
const today = () => new Date().toISOString().slice(0, 10);
const chunkId = (bodyId: string, i: number) => `${bodyId}:${i}`;
export const pageRecordId = (jobId: string, pageId: string) => `${jobId}:${pageId}`;
export const latestId = (tenantId: string, url: string) =>
  `${tenantId}:${sha256(normalizePageUrl(url) ?? url)}`;

/** A stored page in the requested mode: auto takes either mode, a fixed mode only itself. */
const compatible = (asked: FetchMode, stored: StoredFetchMode) => asked === 'auto' || asked === stored;

export class PageStore {
  /** body id → the day this process last saw it used (bounded, oldest first out). */
  private readonly knownBodies = new Map<string, string>();
  /** Concurrent pages' bodies and records go in together (insert-batches.ts). */
  private readonly bodyInserts = new InsertBatches<BodyChunkDoc>(() => this.bodies);
  private readonly recordInserts = new InsertBatches<PageRecordDoc>(() => this.records);
  private readonly latestWrites = new ReplaceBatches<LatestDoc>(() => this.latest);

  constructor(
    private readonly db: Db,
    private readonly contents: PageDayIndex,
  ) {}

  private get records() {
    return this.db.collection<PageRecordDoc>(PAGE_COLLECTIONS.records);
  }
  private get bodies() {
    return this.db.collection<BodyChunkDoc>(PAGE_COLLECTIONS.bodies);
  }
  private get latest() {
    return this.db.collection<LatestDoc>(PAGE_COLLECTIONS.latest);
  }

  /**
   * Keeps a page a job fetched: its body (once per tenant), its record, and (unless `latest` is false) the
   * tenant's latest fetch of the URL. Idempotent (an activity's retry writes the same documents again).
   */
  async save(page: NewPage): Promise<PageMeta> {
    const day = dayOf(page.fetchedAt);
    const bodyId = `${page.tenantId}:${sha256(page.body)}`;
    const chunks = Math.max(1, Math.ceil(page.body.length / BODY_CHUNK_CHARS));
    const meta: PageMeta = {
      url: page.url,
      final_url: page.finalUrl,
      status: page.status,
      content_type: page.contentType,
      ...(page.headers['last-modified'] ? { last_modified: page.headers['last-modified'] } : {}),
      ...(page.headers.etag ? { etag: page.headers.etag } : {}),
      fetch_mode: page.fetchMode,
      bytes: page.bytes,
      fetched_at: page.fetchedAt,
      body_id: bodyId,
      chunks,
    };
    const record = pageRecordId(page.jobId, page.pageId);
    const latest = page.latest === false ? undefined : latestId(page.tenantId, page.url);
    const [bodyNumbered] = await Promise.all([
      this.putBody(bodyId, page.body, chunks, day),
      this.putRecord({
        ...meta,
        _id: record,
        tenant_id: page.tenantId,
        job_id: page.jobId,
        page_id: page.pageId,
      }),
      latest ? this.latestWrites.replace({ _id: latest, ...meta, day }) : null,
    ]);
    await this.contents.numberPage(day, {
      record,
      ...(latest ? { latest } : {}),
      ...(bodyNumbered ? { body: { id: bodyId, chunks } } : {}),
    });
    return meta;
  }

  /**
   * Keeps several pages (a crawl batch's) at once: their writes go out together, one command per collection
   * (the group commits send what arrives in one turn as one command).
   */
  async saveAll(pages: NewPage[]): Promise<void> {
    await Promise.all(pages.map((page) => this.save(page)));
  }

  /**
   * Records a page this job did not fetch (from the cache or an earlier job) as the job's own, so that
   * a re-extract or retry of this job finds it; its body is marked used today.
   */
  async reuse(tenantId: string, jobId: string, pageId: string, meta: PageMeta): Promise<void> {
    const day = today();
    const record = pageRecordId(jobId, pageId);
    const [bodyNumbered] = await Promise.all([
      this.touchBody(meta.body_id, day),
      this.putRecord({
        ...meta,
        _id: record,
        tenant_id: tenantId,
        job_id: jobId,
        page_id: pageId,
        reused: true,
      }),
    ]);
    await this.contents.numberPage(day, {
      record,
      ...(bodyNumbered ? { body: { id: meta.body_id, chunks: meta.chunks } } : {}),
    });
  }

  /** The tenant's latest fetch of the URL, if it is younger than maxAgeMs and in a compatible mode. */
  async cached(
    tenantId: string,
    url: string,
    fetchMode: FetchMode,
    maxAgeMs: number,
  ): Promise<StoredPage | null> {
    if (maxAgeMs <= 0) return null;
    const doc = await this.latest.findOne({ _id: latestId(tenantId, url) });
    if (!doc || !compatible(fetchMode, doc.fetch_mode)) return null;
    if (Date.now() - Date.parse(doc.fetched_at) > maxAgeMs) return null;
    const { _id, day, ...meta } = doc;
    return this.withBody(meta);
  }

  /** The page a job fetched (or reused); null when it was never stored or its content expired. */
  async ofJob(tenantId: string, jobId: string, pageId: string): Promise<StoredPage | null> {
    const doc = await this.records.findOne({ _id: pageRecordId(jobId, pageId) });
    // Another tenant's job id names nothing here.
    if (!doc || doc.tenant_id !== tenantId) return null;
    const { _id, tenant_id, job_id, page_id, reused, ...meta } = doc;
    return this.withBody(meta);
  }

  /** The page a job fetched, or a content_expired failure saying why it cannot be used. */
  async requireOfJob(tenantId: string, jobId: string, pageId: string): Promise<StoredPage> {
    const page = await this.ofJob(tenantId, jobId, pageId);
    if (page) return page;
    throw new CategorizedError(
      'content_expired',
      `the page job ${jobId} fetched is no longer stored (pages are kept PAGE_RETENTION_DAYS) or was never ` +
        'fetched: run the job again',
    );
  }

  /** Deletes what an expired day-index entry names (called by the retention sweep for the day `day`). */
  async expire(refs: PageRefs, day: string): Promise<void> {
    await Promise.all([
      this.records.deleteOne({ _id: refs.record }),
      refs.latest ? deleteUnusedSince(this.latest, refs.latest, day) : null,
      refs.body ? this.expireBody(refs.body, day) : null,
    ]);
  }

  private async expireBody(body: { id: string; chunks: number }, day: string) {
    // Only a body last used on this day or before: a later record keeps it (it was numbered again then).
    if (!(await deleteUnusedSince(this.bodies, chunkId(body.id, 0), day))) return;
    this.knownBodies.delete(body.id);
    await Promise.all(
      Array.from({ length: body.chunks - 1 }, (_, i) =>
        this.bodies.deleteOne({ _id: chunkId(body.id, i + 1) }),
      ),
    );
  }

  /** A new record is inserted (a job's page is stored once); a retry's finds it there and replaces it. */
  private async putRecord(record: PageRecordDoc) {
    if (await this.recordInserts.insert(record)) return;
    const { _id, ...doc } = record;
    await this.records.replaceOne({ _id }, doc, { upsert: true });
  }

  /**
   * Stores the body unless it is there (insert, a duplicate key meaning it is); true when the body is to be
   * numbered on `day`: always, unless this process already saw it used that day (an attempt that stored it
   * and stopped before numbering it leaves it numbered by its retry; numbering it twice is harmless, the
   * sweep's delete being conditional on its day). Chunk 0 goes last, so its presence means the whole body is
   * there.
   */
  private async putBody(bodyId: string, body: string, chunks: number, day: string): Promise<boolean> {
    if (this.knownBodies.get(bodyId) === day) return false;
    for (let i = chunks - 1; i >= 1; i--) {
      const data = body.slice(i * BODY_CHUNK_CHARS, (i + 1) * BODY_CHUNK_CHARS);
      await this.bodyInserts.insert({ _id: chunkId(bodyId, i), data });
    }
    const chunk0 = { _id: chunkId(bodyId, 0), data: body.slice(0, BODY_CHUNK_CHARS), day };
    if (!(await this.bodyInserts.insert(chunk0))) return this.touchBody(bodyId, day);
    this.know(bodyId, day);
    return true;
  }

  /** Marks the body used on `day`; true when it is to be numbered on `day` (see putBody). */
  private async touchBody(bodyId: string, day: string): Promise<boolean> {
    if (this.knownBodies.get(bodyId) === day) return false;
    // `$max` by `_id` alone: a filter on `day` too would make FerretDB read every body of the collection.
    await this.bodies.updateOne({ _id: chunkId(bodyId, 0) }, { $max: { day } });
    this.know(bodyId, day);
    return true;
  }

  private know(bodyId: string, day: string) {
    this.knownBodies.delete(bodyId);
    this.knownBodies.set(bodyId, day);
    if (this.knownBodies.size > KNOWN_BODIES_MAX) {
      const oldest = this.knownBodies.keys().next().value;
      if (oldest !== undefined) this.knownBodies.delete(oldest);
    }
  }

  private async withBody(meta: PageMeta): Promise<StoredPage | null> {
    const parts = await Promise.all(
      Array.from({ length: meta.chunks }, (_, i) => this.bodies.findOne({ _id: chunkId(meta.body_id, i) })),
    );
    if (parts.some((p) => !p)) return null;
    const headers: Record<string, string> = { 'content-type': meta.content_type };
    if (meta.last_modified) headers['last-modified'] = meta.last_modified;
    if (meta.etag) headers.etag = meta.etag;
    return { ...meta, headers, body: parts.map((p) => p?.data ?? '').join('') };
  }
}

/**
 * Deletes the document unless it was used after `day` (its `day` is later), reading and deleting by `_id`
 * alone (FerretDB would read the whole collection for a filter on `day` too). A use marked between the read
 * and the delete puts the document back (a read in that instant misses it, and the page is fetched again).
 */
async function deleteUnusedSince<T extends { _id: string; day?: string }>(
  col: Collection<T>,
  _id: string,
  day: string,
): Promise<boolean> {
  const byId = { _id } as Parameters<Collection<T>['findOne']>[0];
  const doc = await col.findOne(byId, { projection: { day: 1 } });
  if (!doc?.day || doc.day > day) return false;
  const gone = await col.findOneAndDelete(byId);
  if (!gone) return false;
  if (gone.day && gone.day > day) {
    await col.insertOne(gone as Parameters<Collection<T>['insertOne']>[0]).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
    return false;
  }
  return true;
}
