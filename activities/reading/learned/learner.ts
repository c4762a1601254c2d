// Learned extractors, the worker's side: which template a crawl page belongs to (its structure
// matched against its URL shape's templates), which fields that template's verified extractor answers (the
// model is asked only for the rest), and what a model answer teaches the template. The state lives in
// MongoDB (shared/store/learned-extractors.ts, learned-index.ts), shared by every worker, all of it read by
// `_id`; each worker keeps what it read for a second, so a page of a verified template is matched and read
// in the same HTML-pool task that cleans it.
import { createHash } from 'node:crypto';
import type { NormalizedSchema } from '../../../shared/schema-input.js';
import type {
  AnsweredPage,
  HeldAnswers,
  LearnedExtractorStore,
  ShapeKey,
  TemplateKey,
  TemplateRecord,
} from '../../../shared/store/learned-extractors.js';
import { templateId } from '../../../shared/store/learned-extractors.js';
import type { ShapeIndex } from '../../../shared/store/learned-index.js';
import type { HtmlPool } from '../html-pool/pool.js';
import type { CrawlPageTask, TemplateReading } from '../html-pool/tasks.js';
import type { Extraction } from './read.js';
import { type LearnableField, learnableFields, urlShape } from './values.js';

/** What a page of a learning crawl carries from start to finish. */
export interface LearningPage {
  key: ShapeKey;
  fields: LearnableField[];
  jobId: string;
}

/** What the model answers on a page, and what its answer teaches. */
export interface ModelDecision {
  kind: 'model';
  /** A scheduled check of a verified extractor: the model answers every field. */
  check: boolean;
  /** The template as read (null: none); `learn` false when nothing is learned from the answer. */
  record: TemplateRecord | null;
  template: string | null;
  sketch: string | null;
  learn: boolean;
  /** The fields the verified extractor answered here: kept (the model is asked the rest), or checked. */
  extraction?: Extraction;
  /** A check's number among the pages the extractor was asked for. */
  checkN?: number;
  /** The page holds one of its learning template's places (see release). */
  leased?: boolean;
}

export type Decision =
  /** The verified extractor answered every field of the page. */
  | { kind: 'extractor'; extraction: Extraction }
  /** Enough pages of its learning template are with the model: the page should wait and come back. */
  | { kind: 'defer' }
  | ModelDecision;

/** How long a learning page's place is held at most (its worker may die without freeing it). */
const LEASE_MS = 120_000;

/** How long a worker trusts a shape's index or a verified template it read (a failed check shows within it). */
const CACHE_MS = 1_000;
const CACHE_MAX = 2_000;

/**
 * What a worker read by `_id`, kept CACHE_MS when `keep` says so, and one read at a time per id: the pages
 * (and batches) of a process that ask while a read is out wait for that read instead of each sending its own
 * (when a kept value runs out, every page in flight asks at once). `forget` (after a lesson this process
 * recorded) drops the kept value and any read sent before it, whose answer may predate the lesson: a page
 * that asks after it sends a read of its own, and the older answer is not kept.
 */
export class ReadCache<T> {
  private readonly kept = new Map<string, { value: T; at: number }>();
  private readonly out = new Map<string, Promise<T>>();

  constructor(private readonly keep: (value: T) => boolean) {}

  read(id: string, load: () => Promise<T>): Promise<T> {
    const hit = this.kept.get(id);
    if (hit && Date.now() - hit.at < CACHE_MS && this.keep(hit.value)) return Promise.resolve(hit.value);
    const pending = this.out.get(id);
    if (pending) return pending;
    const at = Date.now();
    const read = load().then(
      (value) => {
        // Still this id's read (not forgotten meanwhile): kept for the next pages.
        if (this.out.get(id) === read) {
          this.out.delete(id);
          if (this.kept.size >= CACHE_MAX) this.kept.clear();
          this.kept.set(id, { value, at });
        }
        return value;
      },
      (err: unknown) => {
        if (this.out.get(id) === read) this.out.delete(id);
        throw err;
      },
    );
    if (this.out.size >= CACHE_MAX) this.out.clear();
    this.out.set(id, read);
    return read;
  }

  forget(id: string): void {
    this.kept.delete(id);
    this.out.delete(id);
  }
}

export function makeTemplateLearner(store: LearnedExtractorStore, pool: () => HtmlPool) {
  const shapes = new ReadCache<ShapeIndex | null>(() => true);
  // A learning template's record changes with every answer: only a verified one is kept.
  const records = new ReadCache<TemplateRecord | null>((record) => record?.status === 'verified');
  const keyOf = (page: LearningPage, template: string): TemplateKey => ({ ...page.key, template });

  const shapeOf = (page: LearningPage): Promise<ShapeIndex | null> =>
    shapes.read(JSON.stringify(page.key), () => store.shape(page.key));

  /** A template's record; verified ones from the cache (a learning one changes with every answer). */
  const recordOf = (id: string): Promise<TemplateRecord | null> => records.read(id, () => store.get(id));

  return {
    /** The page's learning context, or null when the job does not learn or its schema cannot be learned. */
    pageOf(input: {
      tenantId: string;
      jobId: string;
      siteId?: string;
      schema: NormalizedSchema;
      url: string;
      learn?: boolean;
    }): LearningPage | null {
      if (input.learn === false || input.schema.input_format === 'prompt') return null;
      const fields = learnableFields(input.schema.fields);
      if (!fields) return null;
      return {
        key: {
          tenantId: input.tenantId,
          scope: input.siteId ? `site:${input.siteId}` : `job:${input.jobId}`,
          schemaHash: schemaHashOf(input.schema.fields),
          urlShape: urlShape(input.url),
        },
        fields,
        jobId: input.jobId,
      };
    },

    /** What the HTML pool matches the page against: its shape's templates, verified ones with candidates. */
    async templatesFor(page: LearningPage): Promise<NonNullable<CrawlPageTask['learned']>> {
      const index = await shapeOf(page);
      const templates = await Promise.all(
        (index?.templates ?? []).map(async ({ key, status, sketches }) => {
          if (status !== 'verified') return { key, status, sketches };
          const record = await recordOf(templateId(keyOf(page, key)));
          return record?.status === 'verified'
            ? { key, status, sketches, fields: record.fields }
            : { key, status, sketches };
        }),
      );
      return { fields: page.fields, templates };
    },

    /**
     * Which of the page's fields its template's verified extractor answers. `valid` checks one value
     * against the schema (a value of the wrong type is left to the model); `answered` describes the page
     * for re-doing, given the fields the extractor answered.
     */
    async decide(
      page: LearningPage,
      reading: TemplateReading | undefined,
      at: {
        /** The page as fetched: its body and final URL (relative links are read against it). */
        doc: { body: string; url: string };
        pageId: string;
        answered: (fields: string[]) => AnsweredPage;
        valid: (field: string, value: unknown) => boolean;
        /** A crawl batch's answered pages, written when it ends (absent: each page's before it answers). */
        held?: HeldAnswers;
      },
    ): Promise<Decision> {
      if (!reading)
        return { kind: 'model', check: false, record: null, template: null, sketch: null, learn: false };
      const model = (record: TemplateRecord | null, template: string, more: Partial<ModelDecision> = {}) =>
        ({
          kind: 'model',
          check: false,
          record,
          template,
          sketch: reading.sketch,
          learn: record?.status !== 'unlearnable',
          ...more,
        }) satisfies ModelDecision;
      const matched = reading.template ? await recordOf(templateId(keyOf(page, reading.template))) : null;
      // No known template is alike (or the one matched is gone): the store matches again, or makes one.
      const template = matched ? reading.template : await store.assign(page.key, reading.sketch);
      if (!template)
        return { kind: 'model', check: false, record: null, template: null, sketch: null, learn: false };
      const record = matched ?? (await store.get(templateId(keyOf(page, template))));
      if (!record || record.status === 'learning') {
        // The first pages of a template teach it; more at once would only cost model calls.
        const lease = await store.lease(keyOf(page, template), reading.sketch, at.pageId, LEASE_MS);
        if (lease === 'full') return { kind: 'defer' };
        if (lease === 'granted') return model(record, template, { leased: true });
        // Learned (or given up) meanwhile: read it again.
        return this.decide(page, { ...reading, template }, at);
      }
      if (record.status !== 'verified') return model(record, template);
      const read =
        reading.template === template && reading.extraction
          ? reading.extraction
          : await pool().run({ kind: 'apply', ...at.doc, fields: page.fields, known: record.fields });
      const extraction = checked(read, at.valid);
      const names = Object.keys(extraction.data);
      if (names.length === 0) return model(record, template);
      const asked = await store.ask(record, page.jobId, at.answered(names), at.held);
      if (asked.check) return model(record, template, { check: true, checkN: asked.n, extraction });
      if (extraction.unanswered.length === 0) return { kind: 'extractor', extraction };
      // The fields it holds cleanly are its; the model is asked for the others only.
      return model(record, template, { extraction });
    },

    /** Frees the page's place when its model answer will teach nothing (it failed). */
    async release(page: LearningPage, decision: Decision, pageId: string): Promise<void> {
      if (decision.kind !== 'model' || !decision.leased || !decision.template) return;
      await store.release(templateId(keyOf(page, decision.template)), pageId);
    },

    /**
     * What the model's answer on the page teaches its template (about the fields the model answered).
     * Returns the pages to re-do when the answer was a check the extractor failed (they were answered by
     * it since the last check).
     */
    async learn(
      page: LearningPage,
      decision: ModelDecision,
      doc: { body: string; url: string },
      data: unknown,
      at: { url: string; pageId: string },
    ): Promise<AnsweredPage[]> {
      if (!decision.learn || !decision.template || !decision.sketch || !isRecord(data)) return [];
      const { record, check } = decision;
      const kept = check ? {} : (decision.extraction?.data ?? {});
      const fields = page.fields.filter((f) => !(f.name in kept));
      const lesson = await pool().run({
        kind: 'learn',
        ...doc,
        fields,
        data,
        known: record?.fields ?? null,
        derive: check || record?.status === 'learning',
      });
      const key = keyOf(page, decision.template);
      const outcome = await store.learn(key, {
        generation: record?.generation ?? 0,
        kept: lesson.kept,
        ...(lesson.fresh ? { fresh: lesson.fresh } : {}),
        url: at.url,
        jobId: page.jobId,
        check,
        ...(check && decision.extraction ? { answered: Object.keys(decision.extraction.data) } : {}),
        pageId: at.pageId,
        ...(decision.checkN === undefined ? {} : { checkN: decision.checkN }),
      });
      const id = templateId(key);
      records.forget(id);
      // The shape's index learns the template's status, and the structure of a page of it unlike those
      // it holds (so its later pages of that make-up match it the better).
      if (outcome.kind === 'learning' || outcome.kind === 'verified')
        await store.touch(key, { status: outcome.kind, sketch: decision.sketch });
      else if (outcome.kind === 'unlearnable') await store.touch(key, { status: 'unlearnable' });
      else if (outcome.kind === 'invalidated') {
        const after = await store.get(id);
        if (after) await store.touch(key, { status: after.status });
      }
      if (outcome.kind !== 'stale' && outcome.kind !== 'outlier') shapes.forget(JSON.stringify(page.key));
      return outcome.kind === 'invalidated' ? outcome.redo : [];
    },
  };
}

/** The extraction with every value that fails the schema's check moved to the unanswered fields. */
function checked(read: Extraction, valid: (field: string, value: unknown) => boolean): Extraction {
  const out: Extraction = { data: {}, selectors: {}, unanswered: [...read.unanswered] };
  for (const [name, value] of Object.entries(read.data)) {
    if (!valid(name, value)) {
      out.unanswered.push(name);
      continue;
    }
    out.data[name] = value;
    const selector = read.selectors[name];
    if (selector !== undefined) out.selectors[name] = selector;
  }
  return out;
}

export type TemplateLearner = ReturnType<typeof makeTemplateLearner>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema's fields' hash, by the fields: a batch's pages share their schema's objects, so it is made once. */
const schemaHashes = new WeakMap<object, string>();

function schemaHashOf(fields: NormalizedSchema['fields']): string {
  let hash = schemaHashes.get(fields);
  if (hash === undefined) {
    hash = createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 24);
    schemaHashes.set(fields, hash);
  }
  return hash;
}
