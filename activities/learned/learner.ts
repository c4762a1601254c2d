// Learned extractors (issue 15), the worker's side: which template a crawl page belongs to, whether its
// verified extractor answers it (no model call), and what a model answer teaches the template. The state
// lives in MongoDB (shared/store/learned-extractors.ts), shared by every worker; each worker keeps the
// records it read for a few seconds, so a page of a verified template is read in the same HTML-pool task
// that cleans it.
import { createHash } from 'node:crypto';
import type { NormalizedSchema } from '../../shared/schema-input.js';
import {
  type AnsweredPage,
  type LearnedExtractorStore,
  type TemplateKey,
  type TemplateRecord,
  templateId,
} from '../../shared/store/learned-extractors.js';
import type { HtmlPool } from '../html-pool/pool.js';
import type { TemplateReading } from '../html-pool/tasks.js';
import { type Extraction, type LearnableField, learnableFields, urlShape } from './dom.js';

/** What a page of a learning crawl carries from start to finish. */
export interface LearningPage {
  key: Omit<TemplateKey, 'domSignature'>;
  fields: LearnableField[];
  jobId: string;
}

export type Decision =
  /** The verified extractor answered the page. */
  | { kind: 'extractor'; extraction: Extraction }
  /** Enough pages of its learning template are with the model: the page should wait and come back. */
  | { kind: 'defer' }
  /**
   * The model answers: `check` when the page is a scheduled check of a verified extractor; `record` is the
   * template as read (null: no page of it was answered yet); `learn` false when the template is given up.
   */
  | {
      kind: 'model';
      check: boolean;
      record: TemplateRecord | null;
      signature: string | null;
      learn: boolean;
      /** A check's number among the pages the extractor was asked for. */
      checkN?: number;
      /** The page holds one of its learning template's places (see release). */
      leased?: boolean;
    };

/** How long a learning page's place is held at most (its worker may die without freeing it). */
const LEASE_MS = 120_000;

/** How long a worker trusts a template record it read (a failed check elsewhere shows within this). */
const CACHE_MS = 1_000;
const CACHE_MAX = 2_000;

export function makeTemplateLearner(store: LearnedExtractorStore, pool: () => HtmlPool) {
  const cache = new Map<string, { record: TemplateRecord | null; at: number }>();
  /** Verified templates by scope, schema and URL shape: what the HTML pool tries on a page. */
  const verified = new Map<string, Map<string, TemplateRecord>>();

  const shapeKey = (k: LearningPage['key']) => `${k.tenantId}\n${k.scope}\n${k.schemaHash}\n${k.urlShape}`;

  function remember(page: LearningPage, id: string, record: TemplateRecord | null) {
    if (cache.size >= CACHE_MAX) {
      cache.clear();
      verified.clear();
    }
    cache.set(id, { record, at: Date.now() });
    const shape = shapeKey(page.key);
    const known = verified.get(shape) ?? new Map<string, TemplateRecord>();
    if (record?.status === 'verified') known.set(record.dom_signature, record);
    else if (record) known.delete(record.dom_signature);
    verified.set(shape, known);
  }

  async function recordOf(page: LearningPage, signature: string): Promise<TemplateRecord | null> {
    const id = templateId({ ...page.key, domSignature: signature });
    // Only verified records are kept: a learning one changes with every page the model answers.
    const hit = cache.get(id);
    if (hit?.record?.status === 'verified' && Date.now() - hit.at < CACHE_MS) return hit.record;
    const record = await store.get(id);
    remember(page, id, record);
    return record;
  }

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
          schemaHash: createHash('sha256')
            .update(JSON.stringify(input.schema.fields))
            .digest('hex')
            .slice(0, 24),
          urlShape: urlShape(input.url),
        },
        fields,
        jobId: input.jobId,
      };
    },

    /** The verified extractors the HTML pool tries on the page (those this worker read lately). */
    extractorsFor(page: LearningPage) {
      const known = verified.get(shapeKey(page.key));
      return [...(known?.values() ?? [])].map((r) => ({ signature: r.dom_signature, fields: r.fields }));
    },

    /**
     * Whether the page's verified extractor answers it. `valid` checks the extractor's data against the
     * schema (a value of the wrong type sends the page to the model).
     */
    async decide(
      page: LearningPage,
      reading: TemplateReading | undefined,
      /** The page as fetched: its body and final URL (relative links are read against it). */
      doc: { body: string; url: string },
      answered: AnsweredPage,
      valid: (data: Record<string, unknown>) => boolean,
    ): Promise<Decision> {
      if (!reading) return { kind: 'model', check: false, record: null, signature: null, learn: false };
      const model = (record: TemplateRecord | null, checkN?: number): Decision => ({
        kind: 'model',
        check: checkN !== undefined,
        record,
        signature: reading.signature,
        learn: record?.status !== 'unlearnable',
        ...(checkN === undefined ? {} : { checkN }),
      });
      const record = await recordOf(page, reading.signature);
      if (!record || record.status === 'learning') {
        // The first pages of a template teach it; more at once would only cost model calls.
        const key = { ...page.key, domSignature: reading.signature };
        const lease = await store.lease(key, answered.pageId, LEASE_MS);
        if (lease === 'full') return { kind: 'defer' };
        if (lease === 'granted')
          return { ...(model(record) as Extract<Decision, { kind: 'model' }>), leased: true };
        // Learned (or given up) meanwhile: read it again.
        return this.decide(page, reading, doc, answered, valid);
      }
      if (record.status !== 'verified') return model(record);
      const extraction =
        reading.extraction ??
        (await pool().run({ kind: 'apply', ...doc, fields: page.fields, known: record.fields }));
      if (extraction.unanswered.length > 0 || !valid(extraction.data)) return model(record);
      const asked = await store.ask(record, page.jobId);
      if (asked.check) return model(record, asked.n);
      await store.answered(record, { ...answered, n: asked.n });
      return { kind: 'extractor', extraction };
    },

    /** Frees the page's place when its model answer will teach nothing (it failed). */
    async release(page: LearningPage, decision: Decision, pageId: string): Promise<void> {
      if (decision.kind !== 'model' || !decision.leased || !decision.signature) return;
      await store.release(templateId({ ...page.key, domSignature: decision.signature }), pageId);
    },

    /**
     * What the model's answer on the page teaches its template. Returns the pages to re-do when the answer
     * was a check the extractor failed (they were answered by it since the last check).
     */
    async learn(
      page: LearningPage,
      decision: Extract<Decision, { kind: 'model' }>,
      doc: { body: string; url: string },
      data: unknown,
      at: { url: string; pageId: string },
    ): Promise<AnsweredPage[]> {
      if (!decision.learn || !decision.signature || !isRecord(data)) return [];
      const { record, check } = decision;
      const lesson = await pool().run({
        kind: 'learn',
        ...doc,
        fields: page.fields,
        data,
        known: record?.fields ?? null,
        derive: check,
      });
      const key = { ...page.key, domSignature: decision.signature };
      const outcome = await store.learn(key, {
        generation: record?.generation ?? 0,
        kept: lesson.kept,
        ...(lesson.fresh ? { fresh: lesson.fresh } : {}),
        url: at.url,
        jobId: page.jobId,
        check,
        pageId: at.pageId,
        ...(decision.checkN === undefined ? {} : { checkN: decision.checkN }),
      });
      cache.delete(templateId(key));
      if (outcome.kind === 'verified' || outcome.kind === 'invalidated') {
        const id = templateId(key);
        remember(page, id, await store.get(id));
      }
      return outcome.kind === 'invalidated' ? outcome.redo : [];
    },
  };
}

export type TemplateLearner = ReturnType<typeof makeTemplateLearner>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
