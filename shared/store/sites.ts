// Stored sites. `_id` = `<tenant id>:<site id>`, so a read is one `_id` lookup and another tenant's id simply
// misses; a tenant's list goes through one index doc holding its site ids in creation order.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { PageAction } from '../schemas/actions.js';
import type { AnalysisResult } from '../schemas/analyze.js';
import type { FetchMode } from '../schemas/common.js';
import type { SiteCrawlOptions } from '../schemas/sites.js';
import { COLLECTIONS, retryOnDuplicate } from './mongo.js';

export interface SiteDoc {
  _id: string;
  id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  url: string;
  domain: string;
  fetch_mode: FetchMode;
  default_schema_id: string | null;
  crawl_options: SiteCrawlOptions;
  analysis_result: AnalysisResult | null;
  /** Absent on sites stored before learned extractors: on. */
  learn_extractors?: boolean;
  /** Page actions run on every page of its crawls; absent on sites stored before them: none. */
  actions?: PageAction[] | null;
  created_at: string;
  updated_at: string;
}

/** The caller-settable fields; absent ones are left as they are on update. */
export type SiteFields = Partial<
  Pick<
    SiteDoc,
    | 'name'
    | 'fetch_mode'
    | 'default_schema_id'
    | 'crawl_options'
    | 'analysis_result'
    | 'learn_extractors'
    | 'actions'
  >
>;

const key = (tenantId: string, id: string) => `${tenantId}:${id}`;

export class SiteStore {
  constructor(private readonly db: Db) {}

  private get sites() {
    return this.db.collection<SiteDoc>(COLLECTIONS.sites);
  }
  private get index() {
    return this.db.collection<{ _id: string; ids: string[] }>(COLLECTIONS.siteIndex);
  }

  async get(tenantId: string, id: string): Promise<SiteDoc | null> {
    return this.sites.findOne({ _id: key(tenantId, id) });
  }

  async create(
    tenantId: string,
    userId: string,
    input: Omit<SiteDoc, '_id' | 'id' | 'tenant_id' | 'user_id' | 'created_at' | 'updated_at'>,
  ): Promise<SiteDoc> {
    const id = `site_${randomUUID().replaceAll('-', '')}`;
    const now = new Date().toISOString();
    const doc: SiteDoc = {
      _id: key(tenantId, id),
      id,
      tenant_id: tenantId,
      user_id: userId,
      ...input,
      created_at: now,
      updated_at: now,
    };
    // Indexed first: a crash in between leaves an id the list skips, never a site the list cannot see.
    await retryOnDuplicate(() =>
      this.index.updateOne({ _id: tenantId }, { $addToSet: { ids: id } }, { upsert: true }),
    );
    await this.sites.insertOne(doc);
    return doc;
  }

  /** Sets only the given fields ($set), so concurrent updates of different fields do not undo each other. */
  async update(tenantId: string, id: string, fields: SiteFields): Promise<SiteDoc | null> {
    return this.sites.findOneAndUpdate(
      { _id: key(tenantId, id) },
      { $set: { ...fields, updated_at: new Date().toISOString() } },
      { returnDocument: 'after' },
    );
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const { deletedCount } = await this.sites.deleteOne({ _id: key(tenantId, id) });
    await this.index.updateOne({ _id: tenantId }, { $pull: { ids: id } });
    return deletedCount === 1;
  }

  /** Newest first. */
  async list(tenantId: string, page: { limit: number; offset: number }) {
    const ids = [...((await this.index.findOne({ _id: tenantId }))?.ids ?? [])].reverse();
    const docs = await Promise.all(
      ids.slice(page.offset, page.offset + page.limit).map((id) => this.get(tenantId, id)),
    );
    return { sites: docs.filter((d): d is SiteDoc => d !== null), total: ids.length };
  }
}
