// Which templates a site (or a job) has, as two small documents read by `_id` (FerretDB pushes only `_id`
// equality down): per scope, schema and URL shape, the templates a page is matched against — each with the
// structure sketches of a few of its pages and its status — and per scope, every template in creation order
// (what a site's listing pages through). Both are bounded; neither grows with the pages crawled.
import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { bestTemplate, similarity, type TemplateExemplars } from '../template-sketch.js';
import { COLLECTIONS } from './mongo.js';
import { OneAtATime } from './one-at-a-time.js';

export type TemplateStatus = 'learning' | 'verified' | 'unlearnable';

/** A URL shape of one scope, for one schema: the pages whose templates are matched against each other. */
export interface ShapeKey {
  tenantId: string;
  scope: string;
  schemaHash: string;
  urlShape: string;
}

/** One template of a shape: `template` is its key within the shape (`t1`, `t2`, …). */
export interface TemplateKey extends ShapeKey {
  template: string;
}

export interface ShapeTemplate extends TemplateExemplars {
  created_at: string;
  /** When its status or exemplars last changed: a learning template left alone this long may be evicted. */
  updated_at: string;
}

export interface ShapeIndex {
  _id: string;
  tenant_id: string;
  scope: string;
  schema_hash: string;
  url_shape: string;
  /** The number of the next template made. */
  next: number;
  templates: ShapeTemplate[];
  created_at: string;
  updated_at: string;
}

interface ScopeIndex {
  _id: string;
  tenant_id: string;
  scope: string;
  /** Template record ids, oldest first. */
  templates: string[];
}

/** Templates per URL shape: a handful is what real sites have; past this the least useful goes. */
export const MAX_TEMPLATES_PER_SHAPE = 16;
/** Templates per site (or job) in all: past this a page of a new template is left to the model. */
export const MAX_TEMPLATES_PER_SCOPE = 1_000;
/** Page sketches kept per template: a page like none of them (by this much) is kept, up to the bound. */
const MAX_EXEMPLARS = 3;
const NEW_EXEMPLAR_BELOW = 0.8;
/** A learning template untouched this long has stalled (its pages stopped coming): it may be evicted. */
const STALLED_MS = 10 * 60_000;

const hash40 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 40);

export const shapeId = (k: ShapeKey) =>
  `${k.tenantId}:${hash40(`${k.scope}\n${k.schemaHash}\n${k.urlShape}`)}`;
export const templateId = (k: TemplateKey) => `${shapeId(k)}:${k.template}`;
const scopeId = (tenantId: string, scope: string) => `${tenantId}:${hash40(scope)}`;

export class TemplateIndex {
  private readonly shapes: Collection<ShapeIndex>;
  private readonly scopes: Collection<ScopeIndex>;
  /** One shape's (or scope's) writes from this process at a time (FerretDB loses concurrent updates). */
  private readonly serial = new OneAtATime();

  constructor(db: Db) {
    this.shapes = db.collection<ShapeIndex>(COLLECTIONS.learnedShapes);
    this.scopes = db.collection<ScopeIndex>(COLLECTIONS.learnedScopes);
  }

  /** The shape's templates; null when it has none (never had, or its scope was forgotten). */
  async shape(key: ShapeKey): Promise<ShapeIndex | null> {
    const doc = await this.shapes.findOne({ _id: shapeId(key) });
    return doc && doc.templates.length > 0 ? doc : null;
  }

  /**
   * The template a page of this sketch belongs to: a known one similar enough, else a new one (when the
   * shape has room, making room by evicting a stalled or given-up template). Matched again here, one page
   * at a time per shape, so the pages of a new template that arrive together make one. Returns the
   * template's key and the id of a template evicted for it (its record is to be deleted), or null when
   * there is no room.
   */
  assign(key: ShapeKey, sketch: string): Promise<{ template: string; evicted: string | null } | null> {
    return this.serial.run(shapeId(key), () => this.assignNow(key, sketch));
  }

  private async assignNow(key: ShapeKey, sketch: string) {
    const id = shapeId(key);
    const doc = await this.shapes.findOne({ _id: id });
    const known = doc?.templates ?? [];
    const best = bestTemplate(sketch, known);
    if (best) return { template: best.template.key, evicted: null };
    const now = new Date().toISOString();
    let kept = known;
    let evicted: ShapeTemplate | null = null;
    if (known.length >= MAX_TEMPLATES_PER_SHAPE) {
      evicted = evictable(known, now);
      if (!evicted) return null;
      kept = known.filter((t) => t !== evicted);
    }
    const next = doc?.next ?? 1;
    const template = `t${next}`;
    const fresh: ShapeTemplate = {
      key: template,
      status: 'learning',
      sketches: [sketch],
      created_at: now,
      updated_at: now,
    };
    const listed = await this.list(key.tenantId, key.scope, {
      add: templateId({ ...key, template }),
      remove: evicted ? templateId({ ...key, template: evicted.key }) : null,
    });
    if (!listed) return null;
    await this.shapes.replaceOne(
      { _id: id },
      {
        tenant_id: key.tenantId,
        scope: key.scope,
        schema_hash: key.schemaHash,
        url_shape: key.urlShape,
        next: next + 1,
        templates: [...kept, fresh],
        created_at: doc?.created_at ?? now,
        updated_at: now,
      },
      { upsert: true },
    );
    return { template, evicted: evicted ? templateId({ ...key, template: evicted.key }) : null };
  }

  /** Records a template's new status, and a page sketch unlike its exemplars (both bounded, both rare). */
  touch(key: TemplateKey, change: { status?: TemplateStatus; sketch?: string }): Promise<void> {
    return this.serial.run(shapeId(key), async () => {
      const doc = await this.shapes.findOne({ _id: shapeId(key) });
      const entry = doc?.templates.find((t) => t.key === key.template);
      if (!doc || !entry) return;
      let changed = false;
      if (change.status && change.status !== entry.status) {
        entry.status = change.status;
        changed = true;
      }
      const { sketch } = change;
      if (
        sketch &&
        entry.sketches.length < MAX_EXEMPLARS &&
        entry.sketches.every((s) => similarity(s, sketch) < NEW_EXEMPLAR_BELOW)
      ) {
        entry.sketches.push(sketch);
        changed = true;
      }
      if (!changed) return;
      entry.updated_at = new Date().toISOString();
      const { _id, ...rest } = doc;
      await this.shapes.replaceOne({ _id }, { ...rest, updated_at: entry.updated_at });
    });
  }

  /** A scope's template record ids, oldest first, and how many it has. */
  async templatesOf(
    tenantId: string,
    scope: string,
    page: { limit: number; offset: number },
  ): Promise<{ ids: string[]; total: number }> {
    const doc = await this.scopes.findOne({ _id: scopeId(tenantId, scope) });
    const all = doc?.templates ?? [];
    return { ids: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }

  /**
   * Forgets a scope's index documents; returns the template record ids it listed. A shape keeps its next
   * template number (its document is emptied, not deleted), so a template learned again later gets a new id:
   * its ask counters and answered pages, read by `_id`, never meet those of the forgotten one.
   */
  async forget(tenantId: string, scope: string): Promise<string[]> {
    const id = scopeId(tenantId, scope);
    const doc = await this.scopes.findOne({ _id: id });
    const ids = doc?.templates ?? [];
    const shapes = [...new Set(ids.map((t) => t.slice(0, t.lastIndexOf(':'))))];
    await Promise.all(
      shapes.map((_id) =>
        this.serial.run(_id, async () => {
          const now = new Date().toISOString();
          await this.shapes.updateOne({ _id }, { $set: { templates: [], updated_at: now } });
        }),
      ),
    );
    await this.scopes.deleteOne({ _id: id });
    return ids;
  }

  /** Adds a template to its scope's list (and drops an evicted one); false when the scope is full. */
  private list(
    tenantId: string,
    scope: string,
    change: { add: string; remove: string | null },
  ): Promise<boolean> {
    const id = scopeId(tenantId, scope);
    return this.serial.run(id, async () => {
      const doc = await this.scopes.findOne({ _id: id });
      const templates = (doc?.templates ?? []).filter((t) => t !== change.remove && t !== change.add);
      if (templates.length >= MAX_TEMPLATES_PER_SCOPE) return false;
      await this.scopes.replaceOne(
        { _id: id },
        { tenant_id: tenantId, scope, templates: [...templates, change.add] },
        { upsert: true },
      );
      return true;
    });
  }
}

/** The template to make room with: a given-up one first, else the learning one stalled longest; verified stay. */
function evictable(templates: ShapeTemplate[], now: string): ShapeTemplate | null {
  const byAge = [...templates].sort((a, b) => a.updated_at.localeCompare(b.updated_at));
  const stalled = new Date(Date.parse(now) - STALLED_MS).toISOString();
  return (
    byAge.find((t) => t.status === 'unlearnable') ??
    byAge.find((t) => t.status === 'learning' && t.updated_at < stalled) ??
    null
  );
}
