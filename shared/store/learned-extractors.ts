// Learned extractors (issue 15): one document per page template — a job's or a stored site's pages of one
// URL shape and DOM signature, for one schema — holding the selectors learned from the model's answers and
// where they stand: learning, verified (pages are answered without the model), or unlearnable. `_id` is
// composed (`<tenant>:<hash>`), so every hot read and write is by `_id`; lists of a site's extractors scan.
import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { ABSENT, type Candidate, candidateKey, type FieldCandidates } from '../learned-extractor.js';
import type { DataSource, FieldProvenance } from '../structured-data.js';
import { COLLECTIONS } from './mongo.js';

export type TemplateStatus = 'learning' | 'verified' | 'unlearnable';

/** A page answered by a learned extractor since its last check: re-done if the next check fails. */
export interface AnsweredPage {
  node: number;
  url: string;
  depth: number;
  parentUrl: string | null;
  pageId: string;
  seq: number;
  /** Where its data came from, and its values by source (the re-done result replaces these counts). */
  source: DataSource;
  values: Partial<Record<FieldProvenance['source'], number>>;
  /** Its number among the pages the extractor was asked for (set by the store). */
  n?: number;
}

export interface TemplateRecord {
  _id: string;
  tenant_id: string;
  /** `job:<job id>` or `site:<site id>`. */
  scope: string;
  schema_hash: string;
  url_shape: string;
  dom_signature: string;
  status: TemplateStatus;
  /** Bumped when a failed check starts learning again; answers about an older generation are dropped. */
  generation: number;
  version: number;
  fields: FieldCandidates;
  /** Model answers that agreed with the candidates, this generation. */
  samples: number;
  learned_from: string[];
  verified_on: string[];
  verified_at: string | null;
  last_checked_at: string | null;
  checks_passed: number;
  invalidations: number;
  /** Pages answered by the extractor, in all. */
  extracted: number;
  /** Pages the extractor was asked for, ever: every `checkEvery`-th is a check. */
  since_count: number;
  since_check: AnsweredPage[];
  /** The job the last passed check (or the verification) ran in: a new job checks first. */
  checked_job: string | null;
  reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface TemplateKey {
  tenantId: string;
  scope: string;
  schemaHash: string;
  urlShape: string;
  domSignature: string;
}

/** Pages of a template the model answers before its candidates count as learned, then as verified. */
export const LEARN_PAGES = 2;
export const VERIFY_PAGES = 2;
/** Failed checks after which a template is given up (its pages keep changing under the same structure). */
const MAX_INVALIDATIONS = 3;

export const templateId = (k: TemplateKey) =>
  `${k.tenantId}:${createHash('sha256')
    .update(`${k.scope}\n${k.schemaHash}\n${k.urlShape}\n${k.domSignature}`)
    .digest('hex')
    .slice(0, 40)}`;

/** What a model-answered page taught, computed in the HTML pool against the record as read. */
export interface Lesson {
  generation: number;
  /** The record's candidates, filtered (and lookups taught) by this page; fresh ones if there was no record. */
  kept: FieldCandidates;
  /** Candidates derived from this page alone: where learning restarts when a check fails. */
  fresh?: FieldCandidates;
  url: string;
  jobId: string;
  /** A scheduled check of a verified extractor (not a page the extractor could not answer). */
  check: boolean;
  /** This page's id, so a failed check does not re-do the page that found it. */
  pageId: string;
  /** A check's number (see ask): pages answered after it stay to be re-done if a later check fails. */
  checkN?: number;
}

export type LessonOutcome =
  | { kind: 'learning' | 'verified' | 'unlearnable' | 'stale' | 'checked' }
  | { kind: 'invalidated'; redo: AnsweredPage[] };

export class LearnedExtractorStore {
  readonly col: Collection<TemplateRecord>;

  constructor(
    db: Db,
    private readonly checkEvery: number,
  ) {
    this.col = db.collection<TemplateRecord>(COLLECTIONS.learnedExtractors);
  }

  get(id: string): Promise<TemplateRecord | null> {
    return this.col.findOne({ _id: id });
  }

  /** A site's templates (management reads; scans). */
  async listForScope(tenantId: string, scope: string): Promise<TemplateRecord[]> {
    return this.col.find({ tenant_id: tenantId, scope }).sort({ created_at: 1 }).limit(500).toArray();
  }

  async deleteForScope(tenantId: string, scope: string): Promise<number> {
    return (await this.col.deleteMany({ tenant_id: tenantId, scope })).deletedCount;
  }

  /**
   * Counts a page the verified extractor could answer and says whether it must go to the model instead, as
   * a check: every `checkEvery`-th page, and the first page of a job other than the one that last checked.
   * `n` numbers the page. null when the record is no longer verified (or of another generation).
   */
  async ask(id: string, generation: number, jobId: string): Promise<{ check: boolean; n: number } | null> {
    const doc = await this.col.findOneAndUpdate(
      { _id: id, status: 'verified', generation },
      { $inc: { since_count: 1 }, $set: { updated_at: new Date().toISOString() } },
      { returnDocument: 'after' },
    );
    if (!doc) return null;
    const n = doc.since_count;
    return { check: n % this.checkEvery === 0 || doc.checked_job !== jobId, n };
  }

  /** Remembers a page the extractor answered, to re-do it if a later check fails. */
  async answered(id: string, generation: number, page: AnsweredPage): Promise<void> {
    await this.col.updateOne(
      { _id: id, generation },
      {
        $inc: { extracted: 1 },
        // The driver's types do not know $slice on a typed collection's $push.
        $push: { since_check: { $each: [page], $slice: -2 * this.checkEvery } } as never,
      },
    );
  }

  /** Records what a model-answered page taught; retried on concurrent writes (optimistic, by version). */
  async learn(key: TemplateKey, lesson: Lesson): Promise<LessonOutcome> {
    const id = templateId(key);
    for (let tries = 0; tries < 8; tries++) {
      const doc = await this.get(id);
      const now = new Date().toISOString();
      if (!doc) {
        if (lesson.generation !== 0) return { kind: 'stale' };
        const fresh: TemplateRecord = {
          _id: id,
          tenant_id: key.tenantId,
          scope: key.scope,
          schema_hash: key.schemaHash,
          url_shape: key.urlShape,
          dom_signature: key.domSignature,
          status: 'learning',
          generation: 0,
          version: 0,
          fields: lesson.kept,
          samples: 1,
          learned_from: [lesson.url],
          verified_on: [],
          verified_at: null,
          last_checked_at: null,
          checks_passed: 0,
          invalidations: 0,
          extracted: 0,
          since_count: 0,
          since_check: [],
          checked_job: null,
          reason: null,
          created_at: now,
          updated_at: now,
        };
        settle(fresh, lesson.jobId);
        try {
          await this.col.insertOne(fresh);
          return { kind: fresh.status === 'verified' ? 'verified' : fresh.status };
        } catch (err) {
          if ((err as { code?: number }).code === 11000) continue;
          throw err;
        }
      }
      if (doc.generation !== lesson.generation || doc.status === 'unlearnable') return { kind: 'stale' };
      const next: TemplateRecord = { ...doc, version: doc.version + 1, updated_at: now };
      let outcome: LessonOutcome;
      const merged = mergeCandidates(doc.fields, lesson.kept);
      if (doc.status === 'learning') {
        next.fields = merged;
        next.samples = doc.samples + 1;
        if (next.learned_from.length < LEARN_PAGES) next.learned_from = [...doc.learned_from, lesson.url];
        else next.verified_on = [...doc.verified_on, lesson.url].slice(-VERIFY_PAGES);
        settle(next, lesson.jobId);
        outcome = { kind: next.status === 'verified' ? 'verified' : next.status };
      } else if (!lesson.check) {
        // The extractor could not answer this page (it deviates, or a lookup met new text): only lookups
        // learn from it, and only when every candidate still reads the model's answer.
        if (!sameShape(doc.fields, lesson.kept)) return { kind: 'checked' };
        next.fields = merged;
        outcome = { kind: 'checked' };
      } else if (Object.values(lesson.kept).every((c) => c === null || c.length > 0)) {
        next.fields = merged;
        next.checks_passed = doc.checks_passed + 1;
        next.last_checked_at = now;
        next.checked_job = lesson.jobId;
        next.since_check = doc.since_check.filter((p) => (p.n ?? 0) > (lesson.checkN ?? 0));
        outcome = { kind: 'checked' };
      } else {
        // The check failed: the extractor read something else than the model on a page it answered.
        const redo = doc.since_check.filter((p) => p.pageId !== lesson.pageId);
        next.generation = doc.generation + 1;
        next.invalidations = doc.invalidations + 1;
        next.status = next.invalidations > MAX_INVALIDATIONS ? 'unlearnable' : 'learning';
        next.reason =
          next.status === 'unlearnable'
            ? `checks failed ${next.invalidations} times`
            : `a check on ${lesson.url} disagreed with the model`;
        next.fields = lesson.fresh ?? {};
        next.samples = 1;
        next.learned_from = [lesson.url];
        next.verified_on = [];
        next.verified_at = null;
        next.since_check = [];
        outcome = { kind: 'invalidated', redo };
      }
      const res = await this.col.replaceOne({ _id: id, version: doc.version }, next);
      if (res.modifiedCount === 1) return outcome;
    }
    return { kind: 'stale' };
  }
}

/** Moves a learning record on: verified once enough pages agree on every field, given up when it cannot. */
function settle(doc: TemplateRecord, jobId: string): void {
  if (doc.status !== 'learning') return;
  const empty = Object.entries(doc.fields).find(([, c]) => c !== null && c.length === 0);
  if (empty) {
    doc.status = 'unlearnable';
    doc.reason = `no selector reads the model's value of "${empty[0]}" on every page`;
  } else if (doc.samples >= LEARN_PAGES + VERIFY_PAGES) {
    // A field the model never saw on these pages is learned as absent: the extractor answers it null (an
    // optional field only) until a page shows a value, which fails the next check.
    for (const [name, c] of Object.entries(doc.fields)) if (c === null) doc.fields[name] = [ABSENT];
    doc.status = 'verified';
    doc.verified_at = new Date().toISOString();
    doc.checked_job = jobId;
  }
}

/** The candidates both hold (by identity), the lesson's version first; lookups keep both's answers. */
function mergeCandidates(stored: FieldCandidates, lesson: FieldCandidates): FieldCandidates {
  const out: FieldCandidates = {};
  for (const name of new Set([...Object.keys(stored), ...Object.keys(lesson)])) {
    const a = stored[name] ?? null;
    const b = lesson[name] ?? null;
    if (a === null || b === null) {
      out[name] = b ?? a;
      continue;
    }
    const byKey = new Map(a.map((c) => [candidateKey(c), c]));
    out[name] = b
      .filter((c) => byKey.has(candidateKey(c)))
      .map((c) => mergeLookup(byKey.get(candidateKey(c)) as Candidate, c))
      .filter((c): c is Candidate => c !== null);
  }
  return out;
}

function mergeLookup(a: Candidate, b: Candidate): Candidate | null {
  if (a.transform.kind !== 'lookup' || b.transform.kind !== 'lookup') return b;
  const map = { ...a.transform.map };
  for (const [text, value] of Object.entries(b.transform.map)) {
    if (Object.hasOwn(map, text) && map[text] !== value) return null;
    map[text] = value;
  }
  return { ...b, transform: { kind: 'lookup', map } };
}

function sameShape(a: FieldCandidates, b: FieldCandidates): boolean {
  return Object.keys(a).every((name) => (a[name]?.length ?? 0) === (b[name]?.length ?? 0));
}
