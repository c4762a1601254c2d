// Stored schemas. `_id` = schema id (not tenant-composed: a public schema is read by other tenants, who know
// only its id); ownership is checked on the doc. Lists go through index docs — one per tenant and one of all
// public schemas — that map each schema id to the few fields lists filter and sort on, so listing reads two
// docs by `_id` and then only the page's schemas.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { SchemaCategory, SchemaVisibility, StoredSchemaQuery } from '../schemas/stored-schemas.js';
import { COLLECTIONS, retryOnDuplicate } from './mongo.js';

export interface StoredSchemaDoc {
  _id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  description: string;
  category: SchemaCategory;
  schema_yaml: string;
  tags: string[] | null;
  visibility: SchemaVisibility;
  is_platform: boolean;
  usage_count: number;
  created_at: string;
  updated_at: string;
}

export type SchemaFields = Pick<
  StoredSchemaDoc,
  'name' | 'description' | 'category' | 'schema_yaml' | 'tags' | 'visibility'
>;

type Summary = Pick<StoredSchemaDoc, 'tenant_id' | 'category' | 'tags' | 'visibility' | 'created_at'>;
interface IndexDoc {
  _id: string;
  entries: Record<string, Summary>;
}

const PUBLIC_INDEX = 'public';
const tenantIndex = (tenantId: string) => `tenant:${tenantId}`;
const uniqueTags = (tags: string[] | null | undefined) => (tags ? [...new Set(tags)] : tags);

export class SchemaLibraryStore {
  constructor(private readonly db: Db) {}

  private get schemas() {
    return this.db.collection<StoredSchemaDoc>(COLLECTIONS.storedSchemas);
  }
  private get index() {
    return this.db.collection<IndexDoc>(COLLECTIONS.schemaIndex);
  }

  /** A schema the tenant may read and use: its own, or a public one. */
  async readable(tenantId: string, id: string): Promise<StoredSchemaDoc | null> {
    const doc = await this.schemas.findOne({ _id: id });
    return doc && (doc.tenant_id === tenantId || doc.visibility === 'public') ? doc : null;
  }

  /** A schema the tenant may change: only its own. */
  async owned(tenantId: string, id: string): Promise<StoredSchemaDoc | null> {
    const doc = await this.schemas.findOne({ _id: id });
    return doc?.tenant_id === tenantId ? doc : null;
  }

  async create(tenantId: string, userId: string, fields: SchemaFields): Promise<StoredSchemaDoc> {
    const now = new Date().toISOString();
    const doc: StoredSchemaDoc = {
      _id: `sch_${randomUUID().replaceAll('-', '')}`,
      tenant_id: tenantId,
      user_id: userId,
      ...fields,
      tags: uniqueTags(fields.tags) ?? null,
      is_platform: false,
      usage_count: 0,
      created_at: now,
      updated_at: now,
    };
    // Indexed first: a crash in between leaves an entry the list skips, never a schema no list shows.
    await this.reindex(doc);
    await this.schemas.insertOne(doc);
    return doc;
  }

  /** Sets only the given fields, so a concurrent usage_count $inc is never overwritten. */
  async update(doc: StoredSchemaDoc, fields: Partial<SchemaFields>): Promise<StoredSchemaDoc | null> {
    const set = { ...fields, updated_at: new Date().toISOString() };
    if (fields.tags !== undefined) set.tags = uniqueTags(fields.tags);
    const updated = await this.schemas.findOneAndUpdate(
      { _id: doc._id },
      { $set: set },
      { returnDocument: 'after' },
    );
    if (updated) await this.reindex(updated);
    return updated;
  }

  async delete(doc: StoredSchemaDoc): Promise<boolean> {
    const { deletedCount } = await this.schemas.deleteOne({ _id: doc._id });
    await this.unindex(doc._id, [tenantIndex(doc.tenant_id), PUBLIC_INDEX]);
    return deletedCount === 1;
  }

  /** One more job used the schema. */
  async countUse(id: string): Promise<void> {
    await this.schemas.updateOne({ _id: id }, { $inc: { usage_count: 1 } });
  }

  /** The tenant's schemas (plus other tenants' public ones unless excluded), filtered, newest first. */
  async list(tenantId: string, query: StoredSchemaQuery) {
    const keys = [tenantIndex(tenantId), ...(query.include_public ? [PUBLIC_INDEX] : [])];
    const entries = new Map<string, Summary>();
    for (const key of keys) {
      const doc = await this.index.findOne({ _id: key });
      for (const [id, summary] of Object.entries(doc?.entries ?? {})) entries.set(id, summary);
    }
    // Reversed first: the sort is stable, so schemas created in the same millisecond stay newest first.
    const ids = [...entries]
      .reverse()
      .filter(
        ([, s]) =>
          (!query.category || s.category === query.category) &&
          (!query.visibility || s.visibility === query.visibility) &&
          (!query.tag || (s.tags ?? []).includes(query.tag)),
      )
      .sort(([, x], [, y]) => y.created_at.localeCompare(x.created_at))
      .map(([id]) => id);
    const page = ids.slice(query.offset, query.offset + query.limit);
    const docs = await Promise.all(page.map((id) => this.readable(tenantId, id)));
    return { schemas: docs.filter((d): d is StoredSchemaDoc => d !== null), total: ids.length };
  }

  /** Puts the schema's summary in its tenant's index, and in the public index exactly when it is public. */
  private async reindex(doc: StoredSchemaDoc): Promise<void> {
    const summary: Summary = {
      tenant_id: doc.tenant_id,
      category: doc.category,
      tags: doc.tags,
      visibility: doc.visibility,
      created_at: doc.created_at,
    };
    const keys = [tenantIndex(doc.tenant_id), ...(doc.visibility === 'public' ? [PUBLIC_INDEX] : [])];
    await Promise.all(
      keys.map((key) =>
        retryOnDuplicate(() =>
          this.index.updateOne({ _id: key }, { $set: { [`entries.${doc._id}`]: summary } }, { upsert: true }),
        ),
      ),
    );
    if (doc.visibility === 'private') await this.unindex(doc._id, [PUBLIC_INDEX]);
  }

  private async unindex(id: string, keys: string[]): Promise<void> {
    await Promise.all(
      keys.map((key) => this.index.updateOne({ _id: key }, { $unset: { [`entries.${id}`]: '' } })),
    );
  }
}
