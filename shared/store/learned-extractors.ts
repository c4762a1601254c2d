// Learned extractors: one document per page template — a job's or a stored site's pages of one
// URL shape whose structures are alike (learned-index.ts matches them), for one schema — holding the
// selectors learned from the model's answers and where they stand: learning, verified (pages are answered
// without the model, a field at a time), or unlearnable. `_id` is composed (`<tenant>:<shape hash>:<key>`),
// so every read and write is by `_id`; a site's list pages through its scope's index document.
import { type Collection, type Db, MongoBulkWriteError } from 'mongodb';
import {
  ABSENT,
  emptiedFields,
  type FieldCandidates,
  mergeCandidates,
  misfit,
  narrowed,
  restartedFields,
} from '../learned-extractor.js';
import type { DataSource, FieldProvenance } from '../structured-data.js';
import { InsertBatches } from './insert-batches.js';
import {
  type ShapeIndex,
  type ShapeKey,
  TemplateIndex,
  type TemplateKey,
  type TemplateStatus,
  templateId,
} from './learned-index.js';
import { COLLECTIONS } from './mongo.js';
import { OneAtATime } from './one-at-a-time.js';

export { type ShapeKey, type TemplateKey, type TemplateStatus, templateId };

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
  /** The template's key within its shape (`t1`, `t2`, …). */
  template: string;
  /** The structure sketch of the page it was made for (the shape's index holds a few more). */
  sketch: string;
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
  /** Checks run (passed or failed), this generation: pages answered = pages asked − checks run. */
  checks_run: number;
  invalidations: number;
  /** The number (see ask) of the last check passed: pages asked after it are re-done if the next fails. */
  last_check_n: number;
  /** The job the last passed check (or the verification) ran in: a new job checks first. */
  checked_job: string | null;
  reason: string | null;
  /**
   * Learning pages whose answers most fields' candidates could not read (another layout under a like
   * structure): set aside; when they outnumber the pages that agreed, learning restarts from the latest.
   */
  outliers?: number;
  /**
   * Fields a learning page started again from its own candidates (see restartedFields), this generation:
   * bounded, so a field whose values no selector reads on every page is left to the model at last.
   */
  restarts?: number;
  /**
   * Pages of a learning template the model is answering now: while LEARN_PAGES + VERIFY_PAGES of them are
   * under way, more would teach nothing new, so they wait (their crawl defers them on a durable timer).
   */
  leases?: { page_id: string; until: string }[];
  created_at: string;
  updated_at: string;
}

/** Pages of a template the model answers before its candidates count as learned, then as verified. */
export const LEARN_PAGES = 2;
export const VERIFY_PAGES = 2;
/** Failed checks after which a template is given up (its pages keep changing under the same structure). */
const MAX_INVALIDATIONS = 3;
/** Times a learning template's emptied fields start again from a later page, per generation. */
const MAX_RESTARTS = 2;

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
  /**
   * A check's fields the extractor had answered: the check fails when the model contradicts one of them
   * (the others only narrow their candidates). Absent: every field.
   */
  answered?: string[];
  /** This page's id, so a failed check does not re-do the page that found it. */
  pageId: string;
  /** A check's number (see ask): pages answered after it stay to be re-done if a later check fails. */
  checkN?: number;
}

export type LessonOutcome =
  /** `outlier`: a learning page most of whose fields the candidates could not read, set aside. */
  | { kind: 'learning' | 'verified' | 'unlearnable' | 'stale' | 'checked' | 'outlier' }
  | { kind: 'invalidated'; redo: AnsweredPage[] };

/**
 * Per-page writes stay off the template's record (read by every page, rewritten on every lesson): the count
 * of pages asked of it, one small document per generation that each process takes numbers from a block at a
 * time, and each page it answered, one document each (concurrent pages' inserts go as one command).
 */
interface AskCounter {
  _id: string;
  tenant_id: string;
  scope: string;
  n: number;
}

interface AnswerDoc extends AnsweredPage {
  _id: string;
  tenant_id: string;
  scope: string;
}

/**
 * Numbers a process took from a counter at once and hands to its pages one at a time: `start`..`end`, the
 * next one `next`, taken at `at` (ms).
 */
interface NumberBlock {
  start: number;
  next: number;
  end: number;
  at: number;
}

/** What asking a verified extractor for a page answered: a check (the model answers), or the page is its. */
export type Asked = { check: true; n: number } | { check: false; n: number };

/**
 * How long a process hands out a block's numbers (as long as a worker trusts a verified template it read),
 * and how many it takes at most: a block doubles while its numbers are used up within that time (a busy
 * crawl), and a block that outlives it is dropped and the next is of one number (a slow crawl counts each
 * page, as before blocks).
 */
const BLOCK_MS = 1_000;
const MAX_BLOCK = 16;
/**
 * Answered pages numbered up to this many before the last passed check are kept, and re-done when the next
 * check fails: pages run several at once take their numbers in another order than they were fetched (a
 * crawl's pages in flight, a process's block), so a page of the changed template may be numbered before a
 * passed check that read an older page, and must not be forgotten by it.
 */
export const ANSWERS_KEPT_BEHIND = 64;
const BLOCKS_MAX = 2_000;
/** Attempts to record an answered page under a number no other process holds (see ask). */
const NUMBER_ATTEMPTS = 3;

const counterId = (id: string, generation: number) => `${id}:${generation}`;
const answerId = (id: string, generation: number, n: number) =>
  `${id}:${generation}:${String(n).padStart(10, '0')}`;
/** The ids of a template generation's answered pages numbered `from`..`to` (none when `to` < `from`). */
const answerIds = (doc: TemplateRecord, from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => answerId(doc._id, doc.generation, from + i));

export class LearnedExtractorStore {
  readonly col: Collection<TemplateRecord>;
  /**
   * One template's writes from this process, one after another (see OneAtATime); across worker processes
   * on FerretDB a lost count only shifts when the next check falls.
   */
  private readonly serial = new OneAtATime();
  private readonly counters: Collection<AskCounter>;
  private readonly answers: Collection<AnswerDoc>;
  /** Concurrent pages' answered records go in together (insert-batches.ts). */
  private readonly answerInserts: InsertBatches<AnswerDoc>;
  /** Per counter (template and generation), the numbers this process took and hands out. */
  private readonly blocks = new Map<string, NumberBlock>();
  private readonly index: TemplateIndex;

  constructor(
    db: Db,
    private readonly checkEvery: number,
  ) {
    this.col = db.collection<TemplateRecord>(COLLECTIONS.learnedExtractors);
    this.counters = db.collection<AskCounter>(COLLECTIONS.learnedCounters);
    this.answers = db.collection<AnswerDoc>(COLLECTIONS.learnedAnswers);
    this.answerInserts = new InsertBatches(() => this.answers);
    this.index = new TemplateIndex(db);
  }

  /** A URL shape's templates with their sketches: what its pages are matched against (one read by `_id`). */
  shape(key: ShapeKey): Promise<ShapeIndex | null> {
    return this.index.shape(key);
  }

  /**
   * The template of a page of this structure sketch: a known one alike, or a new one; null when the shape
   * and the scope are full (the page is left to the model). A template evicted to make room is deleted.
   */
  async assign(key: ShapeKey, sketch: string): Promise<string | null> {
    const assigned = await this.index.assign(key, sketch);
    if (assigned?.evicted) await this.purge(assigned.evicted);
    return assigned?.template ?? null;
  }

  /** Tells the shape's index a template's new status, or a sketch of one more of its pages. */
  touch(key: TemplateKey, change: { status?: TemplateStatus; sketch?: string }): Promise<void> {
    return this.index.touch(key, change);
  }

  /**
   * Pages the template's extractor answered, this generation (numbers taken less checks run: a block's
   * numbers a process did not use before dropping it count too, at most MAX_BLOCK − 1 a process and crawl).
   */
  async pagesAnswered(r: TemplateRecord): Promise<number> {
    const counter = await this.counters.findOne({ _id: counterId(r._id, r.generation) });
    return Math.max(0, (counter?.n ?? 0) - r.checks_run);
  }

  get(id: string): Promise<TemplateRecord | null> {
    return this.col.findOne({ _id: id });
  }

  /** A page of a site's (or job's) templates, oldest first, read by `_id` through its scope's index. */
  async listForScope(
    tenantId: string,
    scope: string,
    page: { limit: number; offset: number },
  ): Promise<{ records: TemplateRecord[]; total: number }> {
    const { ids, total } = await this.index.templatesOf(tenantId, scope, page);
    const records = await Promise.all(ids.map((_id) => this.col.findOne({ _id })));
    return { records: records.filter((r): r is TemplateRecord => r !== null), total };
  }

  /**
   * Forgets a scope's templates (management, rare), each read and deleted by `_id` through the scope's index
   * with its ask counters and the answered pages a later check could still re-do. A record no index lists
   * (left by an eviction racing a lesson) is not found: its id is never used again (see TemplateIndex.forget),
   * so it is only space, read by nothing.
   */
  async deleteForScope(tenantId: string, scope: string): Promise<number> {
    const ids = await this.index.forget(tenantId, scope);
    let deleted = 0;
    for (let i = 0; i < ids.length; i += 16) {
      const done = await Promise.all(ids.slice(i, i + 16).map((id) => this.purge(id)));
      deleted += done.filter(Boolean).length;
    }
    return deleted;
  }

  /** Deletes a template's record, its counters (one per generation) and its answers since its last check. */
  private async purge(id: string): Promise<boolean> {
    const doc = await this.col.findOne({ _id: id });
    if (!doc) return false;
    const counter = await this.counters.findOne({ _id: counterId(id, doc.generation) });
    if (counter) await this.forgetAnswered(doc, doc.last_check_n + 1 - ANSWERS_KEPT_BEHIND, counter.n);
    await Promise.all(
      Array.from({ length: doc.generation + 1 }, (_, g) =>
        this.counters.deleteOne({ _id: counterId(id, g) }),
      ),
    );
    return (await this.col.deleteOne({ _id: id })).deletedCount === 1;
  }

  /**
   * Numbers a page the verified extractor could answer and says whether it must go to the model instead, as
   * a check: the first page of a block of numbers that holds a multiple of `checkEvery` (so a check comes
   * every `checkEvery` numbers, whichever process took them, and a block dropped half-used skips none), and
   * the first page of a job other than the one that last checked. A page that is not a check is remembered
   * (`page`, numbered here), to be re-done if a later check fails: its record is written before it answers,
   * or held with its crawl batch's (`held`, written by recordHeld when the batch ends).
   */
  async ask(record: TemplateRecord, jobId: string, page: AnsweredPage, held?: HeldAnswers): Promise<Asked> {
    const counter = counterId(record._id, record.generation);
    for (let attempt = 1; ; attempt++) {
      const { n, scheduled } = await this.serial.run(counter, () => this.take(record, counter));
      if (scheduled || record.checked_job !== jobId) return { check: true, n };
      const doc: AnswerDoc = {
        _id: answerId(record._id, record.generation, n),
        tenant_id: record.tenant_id,
        scope: record.scope,
        ...page,
        n,
      };
      if (held) {
        held.add(record, doc);
        return { check: false, n };
      }
      if (await this.answerInserts.insert(doc)) return { check: false, n };
      // Another process holds this number too (FerretDB can lose one of two concurrent `$inc`s): the block
      // is dropped and the page takes a fresh number; after a few tries it keeps no record (as a page whose
      // record is lost: a later failed check does not re-do it).
      const block = this.blocks.get(counter);
      if (block && block.start <= n && n <= block.end) this.blocks.delete(counter);
      if (attempt >= NUMBER_ATTEMPTS) return { check: false, n };
    }
  }

  /** The next number of the process's block for the counter, taking a new block when it has none to give. */
  private async take(record: TemplateRecord, counter: string): Promise<{ n: number; scheduled: boolean }> {
    const now = Date.now();
    const held = this.blocks.get(counter);
    // A block behind a passed check (another process's) is dropped too: its pages would never be re-done.
    const usable =
      held && held.next <= held.end && now - held.at < BLOCK_MS && held.next > record.last_check_n;
    let block = usable ? held : undefined;
    if (!block) {
      const size =
        !held || now - held.at >= BLOCK_MS
          ? 1
          : Math.min(MAX_BLOCK, this.checkEvery, 2 * (held.end - held.start + 1));
      const taken = await this.counters.findOneAndUpdate(
        { _id: counter },
        { $inc: { n: size }, $setOnInsert: { tenant_id: record.tenant_id, scope: record.scope } },
        { upsert: true, returnDocument: 'after' },
      );
      const end = taken?.n ?? size;
      block = { start: end - size + 1, next: end - size + 1, end, at: now };
      if (this.blocks.size >= BLOCKS_MAX) this.blocks.clear();
      this.blocks.set(counter, block);
    }
    const n = block.next++;
    const every = this.checkEvery;
    const scheduled =
      n === block.start && Math.floor(block.end / every) > Math.floor((block.start - 1) / every);
    return { n, scheduled };
  }

  /**
   * Writes the answered pages a crawl batch held (one insert), and answers those to re-do: the
   * pages of a template whose extractor failed a check (or is gone) before they were written, which the
   * check could not find. Its lesson wrote the new generation before it claimed the pages it found, so a
   * page written after that claim sees the new generation here; either side claims a page by deleting its
   * record, so each is re-done once.
   */
  async recordHeld(held: HeldAnswers, completed: ReadonlySet<string>): Promise<AnsweredPage[]> {
    const redo: AnsweredPage[] = [];
    const groups = held.take(completed);
    if (groups.length === 0) return redo;
    // Every template's pages in one insert; each template's record is read once all are written.
    await this.answers
      .insertMany(
        groups.flatMap((g) => g.docs),
        { ordered: false },
      )
      .catch((err: unknown) => {
        // A number another process holds too (a lost count): that page keeps no record (see ask).
        if (!(err instanceof MongoBulkWriteError) || !bulkDuplicatesOnly(err)) throw err;
      });
    const records = await Promise.all(groups.map(({ record }) => this.get(record._id)));
    for (const [i, { record, docs }] of groups.entries()) {
      const now = records[i] ?? null;
      if (now && (now.generation !== record.generation || now.status === 'unlearnable')) {
        redo.push(...(await this.claim(docs.map((d) => d._id))));
        continue;
      }
      // Pages of a template gone meanwhile (evicted, forgotten), or numbered further before a check that
      // passed meanwhile than it keeps (it forgot their numbers before they were written), are never re-done.
      const passed = docs.filter((d) => !now || (d.n ?? 0) <= now.last_check_n - ANSWERS_KEPT_BEHIND);
      await this.deleteAnswers(passed.map((d) => d._id));
    }
    return redo;
  }

  /** The answered pages whose records this call deleted (another claimant deleting one first keeps it). */
  private async claim(ids: string[]): Promise<AnsweredPage[]> {
    const found = await Promise.all(ids.map((_id) => this.answers.findOne({ _id })));
    const claimed = await Promise.all(
      found.map(async (d) =>
        d && (await this.answers.deleteOne({ _id: d._id })).deletedCount === 1 ? d : null,
      ),
    );
    return claimed
      .filter((d): d is AnswerDoc => d !== null)
      .map(({ _id, tenant_id, scope, ...page }) => page);
  }

  /**
   * The pages answered since the last passed check (and ANSWERS_KEPT_BEHIND before it): up to the failed
   * check `n`, and those numbered after it (answered while the check was with the model); at most
   * 2 × checkEvery either side of `n`, and the pages kept behind.
   */
  private async answeredSince(doc: TemplateRecord, n: number): Promise<AnsweredPage[]> {
    const counter = await this.counters.findOne({ _id: counterId(doc._id, doc.generation) });
    const from = Math.max(1, Math.max(doc.last_check_n + 1, n - 2 * this.checkEvery) - ANSWERS_KEPT_BEHIND);
    const to = Math.min(Math.max(n, counter?.n ?? n), n + 2 * this.checkEvery);
    return this.claim(answerIds(doc, from, to));
  }

  /**
   * Takes one of a learning template's places for a model answer (creating the template's record), or
   * null when every place is taken: the page should wait. A place is freed when its lesson is recorded or
   * released, or after `holdMs` (its worker died).
   */
  lease(
    key: TemplateKey,
    sketch: string,
    pageId: string,
    holdMs: number,
  ): Promise<'granted' | 'full' | 'settled'> {
    return this.serial.run(templateId(key), () => this.leaseNow(key, sketch, pageId, holdMs));
  }

  private async leaseNow(
    key: TemplateKey,
    sketch: string,
    pageId: string,
    holdMs: number,
  ): Promise<'granted' | 'full' | 'settled'> {
    const id = templateId(key);
    const now = new Date();
    const until = new Date(now.getTime() + holdMs).toISOString();
    const start = { fields: {}, samples: 0, learned_from: [] };
    await this.col
      .insertOne(this.fresh(key, id, sketch, now.toISOString(), start))
      .catch((err: { code?: number }) => {
        if (err.code !== 11000) throw err;
      });
    // By `_id` alone (FerretDB scans for any other filter); a record settled meanwhile gives the place back.
    const doc = await this.col.findOneAndUpdate(
      { _id: id },
      { $push: { leases: { page_id: pageId, until } } },
      { returnDocument: 'after' },
    );
    if (!doc) return 'settled';
    if (doc.status !== 'learning') {
      await this.releaseNow(id, pageId);
      return 'settled';
    }
    const live = (doc.leases ?? []).filter((l) => l.until > now.toISOString());
    if (live.findIndex((l) => l.page_id === pageId) < LEARN_PAGES + VERIFY_PAGES) return 'granted';
    await this.releaseNow(id, pageId);
    return 'full';
  }

  /** Frees a page's place (its model call failed, or it was not needed). */
  release(id: string, pageId: string): Promise<void> {
    return this.serial.run(id, () => this.releaseNow(id, pageId));
  }

  private async releaseNow(id: string, pageId: string): Promise<void> {
    await this.col.updateOne({ _id: id }, { $pull: { leases: { page_id: pageId } } });
  }

  private fresh(
    key: TemplateKey,
    id: string,
    sketch: string,
    now: string,
    start: Pick<TemplateRecord, 'fields' | 'samples' | 'learned_from'>,
  ): TemplateRecord {
    return {
      _id: id,
      tenant_id: key.tenantId,
      scope: key.scope,
      schema_hash: key.schemaHash,
      url_shape: key.urlShape,
      template: key.template,
      sketch,
      status: 'learning',
      generation: 0,
      version: 0,
      ...start,
      verified_on: [],
      verified_at: null,
      last_checked_at: null,
      checks_passed: 0,
      checks_run: 0,
      invalidations: 0,
      last_check_n: 0,
      checked_job: null,
      reason: null,
      leases: [],
      created_at: now,
      updated_at: now,
    };
  }

  /**
   * Records what a model-answered page taught. Written by `_id` (FerretDB scans a filter on any other
   * field): one process's lessons for a template go one after another; across processes the later write wins.
   */
  learn(key: TemplateKey, lesson: Lesson): Promise<LessonOutcome> {
    return this.serial.run(templateId(key), () => this.learnNow(key, lesson));
  }

  private async learnNow(key: TemplateKey, lesson: Lesson): Promise<LessonOutcome> {
    const id = templateId(key);
    const doc = await this.get(id);
    // Gone (evicted, forgotten), relearning since, or given up: the answer teaches it nothing.
    if (!doc || doc.generation !== lesson.generation || doc.status === 'unlearnable')
      return { kind: 'stale' };
    const now = new Date().toISOString();
    const next: TemplateRecord = {
      ...doc,
      version: doc.version + 1,
      updated_at: now,
      // This page's place is free; so are those of pages whose workers died.
      leases: (doc.leases ?? []).filter((l) => l.page_id !== lesson.pageId && l.until > now),
    };
    const emptied = emptiedFields(doc.fields, lesson.kept);
    let outcome: LessonOutcome;
    if (doc.status === 'learning') outcome = this.learning(doc, next, lesson, emptied);
    else if (!lesson.check) {
      // A page the extractor could not answer in full: its fields' candidates that read the model's values
      // stay (a brittle selector goes), a field none reads keeps its own (the page is its outlier), and a
      // page most of whose fields none reads teaches nothing (another layout under a like structure).
      if (misfit(doc.fields, lesson.kept, emptied)) return { kind: 'outlier' };
      next.fields = narrowed(doc.fields, lesson.kept);
      if (JSON.stringify(next.fields) === JSON.stringify(doc.fields)) return { kind: 'checked' };
      outcome = { kind: 'checked' };
    } else {
      const answered = lesson.answered ?? Object.keys(doc.fields);
      if (!answered.some((name) => emptied.includes(name))) {
        next.fields = narrowed(doc.fields, lesson.kept);
        next.checks_passed = doc.checks_passed + 1;
        next.checks_run = doc.checks_run + 1;
        next.last_checked_at = now;
        next.checked_job = lesson.jobId;
        next.last_check_n = Math.max(doc.last_check_n, lesson.checkN ?? 0);
        outcome = { kind: 'checked' };
      } else {
        // The check failed: the extractor read something else than the model on a page it answered.
        invalidate(next, lesson);
        outcome = { kind: 'invalidated', redo: [] };
      }
    }
    await this.col.replaceOne({ _id: id }, next);
    // The pages it answered since the last passed check, claimed once the new generation is written (see
    // recordHeld: a crawl batch's pages written after this see it, and claim themselves).
    if (outcome.kind === 'invalidated')
      outcome.redo = (await this.answeredSince(doc, lesson.checkN ?? 0)).filter(
        (p) => p.pageId !== lesson.pageId,
      );
    // Pages answered further before a passed check than it keeps will never be re-done: their records go.
    if (outcome.kind === 'checked' && next.last_check_n > doc.last_check_n)
      await this.forgetAnswered(
        doc,
        doc.last_check_n + 1 - ANSWERS_KEPT_BEHIND,
        next.last_check_n - ANSWERS_KEPT_BEHIND,
      );
    return outcome;
  }

  /** A learning template's lesson: merged, or set aside when most fields' candidates missed the page. */
  private learning(
    doc: TemplateRecord,
    next: TemplateRecord,
    lesson: Lesson,
    emptied: string[],
  ): LessonOutcome {
    if (doc.samples > 0 && misfit(doc.fields, lesson.kept, emptied)) {
      next.outliers = (doc.outliers ?? 0) + 1;
      // Most pages disagree with the first ones: those were the outliers; learning restarts from this one.
      if (next.outliers > doc.samples + 1 && lesson.fresh) {
        next.fields = lesson.fresh;
        next.samples = 1;
        next.learned_from = [lesson.url];
        next.verified_on = [];
        next.outliers = 0;
        next.reason = `most pages disagreed with the first ones: learning restarted on ${lesson.url}`;
        return { kind: 'learning' };
      }
      return { kind: 'outlier' };
    }
    next.fields = mergeCandidates(doc.fields, lesson.kept);
    const again = (doc.restarts ?? 0) < MAX_RESTARTS ? restartedFields(emptied, lesson.fresh) : {};
    if (Object.keys(again).length > 0) {
      // The pages before were these fields' outliers: they start again here, and so does the count of pages
      // agreeing (the other fields' candidates read this page too).
      next.fields = { ...next.fields, ...again };
      next.restarts = (doc.restarts ?? 0) + 1;
      next.samples = 1;
      next.learned_from = [lesson.url];
      next.verified_on = [];
    } else {
      next.samples = doc.samples + 1;
      if (next.learned_from.length < LEARN_PAGES) next.learned_from = [...doc.learned_from, lesson.url];
      else next.verified_on = [...doc.verified_on, lesson.url].slice(-VERIFY_PAGES);
    }
    settle(next, lesson.jobId);
    return { kind: next.status === 'verified' ? 'verified' : next.status };
  }

  /**
   * Drops the records of the pages numbered `from`..`to` (at most 2 × checkEvery + ANSWERS_KEPT_BEHIND of
   * them), in one command of deletes each by `_id`.
   */
  private async forgetAnswered(doc: TemplateRecord, from: number, to: number): Promise<void> {
    const first = Math.max(from, 1, to - 2 * this.checkEvery - ANSWERS_KEPT_BEHIND + 1);
    await this.deleteAnswers(answerIds(doc, first, to));
  }

  /** Deletes answered pages' records, each by `_id`, in one command (none: no command). */
  private async deleteAnswers(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.answers.bulkWrite(
      ids.map((_id) => ({ deleteOne: { filter: { _id } } })),
      { ordered: false },
    );
  }
}

/** Starts learning again from a check's page, or gives the template up after too many failed checks. */
function invalidate(next: TemplateRecord, lesson: Lesson): void {
  next.generation += 1;
  next.invalidations += 1;
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
  next.checks_run = 0;
  next.last_check_n = 0;
  next.outliers = 0;
  next.restarts = 0;
}

/**
 * Moves a learning record on: verified once enough pages agree, given up when no field has a candidate left.
 * A field whose values no candidate read on every page is left to the model (the others are still answered).
 */
function settle(doc: TemplateRecord, jobId: string): void {
  if (doc.status !== 'learning') return;
  const fields = Object.entries(doc.fields);
  const unread = fields.filter(([, c]) => c !== null && c.length === 0).map(([name]) => name);
  if (fields.length > 0 && unread.length === fields.length) {
    doc.status = 'unlearnable';
    doc.reason = "no selector reads the model's values on every page";
  } else if (doc.samples >= LEARN_PAGES + VERIFY_PAGES) {
    // A field the model never saw on these pages is learned as absent: the extractor answers it null (an
    // optional field only) until a page shows a value, which fails the next check.
    for (const [name, c] of fields) if (c === null) doc.fields[name] = [ABSENT];
    doc.status = 'verified';
    doc.verified_at = new Date().toISOString();
    doc.checked_job = jobId;
    if (unread.length > 0)
      doc.reason = `left to the model (no selector reads their values on every page): ${unread.join(', ')}`;
  }
}

/**
 * The answered pages of one crawl batch (or lone crawl page), held until it ends and written together
 * (LearnedExtractorStore.recordHeld) before it answers: its pages' results reach the crawl only with the
 * batch's, and a batch that fails runs every page again, so a page is never counted done without its record.
 */
export class HeldAnswers {
  private readonly byCounter = new Map<string, { record: TemplateRecord; docs: AnswerDoc[] }>();

  add(record: TemplateRecord, doc: AnswerDoc): void {
    const key = counterId(record._id, record.generation);
    const group = this.byCounter.get(key) ?? { record, docs: [] };
    group.docs.push(doc);
    this.byCounter.set(key, group);
  }

  /** The held pages of `pages` by template and generation (none held after). */
  take(pages: ReadonlySet<string>): { record: TemplateRecord; docs: AnswerDoc[] }[] {
    const groups = [...this.byCounter.values()]
      .map(({ record, docs }) => ({ record, docs: docs.filter((d) => pages.has(d.pageId)) }))
      .filter((g) => g.docs.length > 0);
    this.byCounter.clear();
    return groups;
  }
}

function bulkDuplicatesOnly(err: MongoBulkWriteError): boolean {
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return errors.length > 0 && errors.every((e) => e.code === 11000);
}
