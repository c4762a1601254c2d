// bench:real:learned's crawl: pages go through what a crawl page does with learned extractors
// (activities/crawl/crawl-page.ts) — the learner picks the page's templates, the HTML pool's crawl-page task
// sketches the page and matches and applies them, the learner decides which fields the extractor answers,
// and the model's answer teaches the template — with the HTML pool's task code run in this thread, the
// stores on an in-memory database, and an oracle model that answers the page's expected values. Structured
// data is off: what is measured is the learned extractor alone.
import { randomUUID } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { validatorFor } from '../../activities/extraction/schema-validators.js';
import type { HtmlPool } from '../../activities/reading/html-pool/pool.js';
import runHtmlTask, {
  type HtmlTask,
  type TemplateReading,
} from '../../activities/reading/html-pool/tasks.js';
import { makeTemplateLearner } from '../../activities/reading/learned/learner.js';
import { type NormalizedSchema, normalizeSchema, toJsonSchema } from '../../shared/schema-input.js';
import { LearnedExtractorStore } from '../../shared/store/learned-extractors.js';
import { bestTemplate } from '../../shared/template-sketch.js';
import { present } from './compare.js';
import { memoryDb } from './memory-db.js';
import { EXPECTED, FIELDS, TYPED_SCHEMA } from './recipe-pages.js';

export interface CrawlPage {
  /** The real page it was made from (a real page is its own). */
  family: string;
  html: string;
  url: string;
  expected: Record<string, unknown>;
}

export interface CrawlOutcome {
  /** extractor: no model call; model: the model answered the fields the extractor left (or all). */
  kind: 'extractor' | 'model' | 'check' | 'defer';
  /** The page's template within its URL shape (null: none, the shape was full). */
  template: string | null;
  urlShape: string;
  /** Values answered without the model. */
  free: Record<string, unknown>;
}

const CHAIN = [{ name: 'noop' as const }];
export const TENANT = 'bench';

/** What the oracle model answers for a page: its expected values, null where there is none. */
export function oracle(expected: Record<string, unknown>, fields = FIELDS): Record<string, unknown> {
  return Object.fromEntries(
    fields.map((f) => {
      const v = expected[EXPECTED[f] as string];
      return [f, present(v) ? v : null];
    }),
  );
}

function inThread(): HtmlPool {
  return {
    async run(task: HtmlTask) {
      const { port1, port2 } = new MessageChannel();
      const outcome = await runHtmlTask({ task, started: port1 });
      port2.close();
      if (!outcome.ok) throw new Error(outcome.error.message);
      return outcome.value;
    },
    close: async () => {},
  } as HtmlPool;
}

/** The bench's typed schema, or the part of it naming `fields`. */
export const schemaOf = (fields = FIELDS): NormalizedSchema =>
  normalizeSchema(Object.fromEntries(Object.entries(TYPED_SCHEMA).filter(([name]) => fields.includes(name))));

/** A crawl of pages asked for `fields` (every field of the bench by default). */
export function learnedCrawler(checkEvery: number, fields = FIELDS) {
  const memory = memoryDb();
  const store = new LearnedExtractorStore(memory.db, checkEvery);
  const pool = inThread();
  const learner = makeTemplateLearner(store, () => pool);
  const schema = schemaOf(fields);
  const validators = new Map(
    schema.fields.map((f) => [f.name, validatorFor(toJsonSchema({ ...schema, fields: [f] }))]),
  );
  const valid = (name: string, value: unknown) => validators.get(name)?.({ [name]: value }) === true;

  /** One page of the job `jobId`, as a crawl page runs it. */
  async function crawl(jobId: string, page: CrawlPage): Promise<CrawlOutcome> {
    const learning = learner.pageOf({ tenantId: TENANT, jobId, schema, url: page.url });
    if (!learning) throw new Error('the bench schema is not learnable');
    const templates = await learner.templatesFor(learning);
    const read = await pool.run({
      kind: 'crawl-page',
      body: page.html,
      contentType: 'text/html',
      url: page.url,
      chain: CHAIN,
      rules: null,
      seedUrl: page.url,
      readStructured: false,
      learned: templates,
    });
    const pageId = randomUUID();
    const decision = await learner.decide(learning, read.template, {
      doc: { body: page.html, url: page.url },
      pageId,
      answered: () => ({
        node: 0,
        url: page.url,
        depth: 1,
        parentUrl: null,
        pageId,
        seq: 0,
        source: 'learned_extractor',
        values: {},
      }),
      valid,
    });
    const urlShape = learning.key.urlShape;
    if (decision.kind === 'defer') return { kind: 'defer', template: null, urlShape, free: {} };
    if (decision.kind === 'extractor')
      return {
        kind: 'extractor',
        template: await templateOf(learning.key, read.template),
        urlShape,
        free: decision.extraction.data,
      };
    const free = decision.check ? {} : (decision.extraction?.data ?? {});
    const data = { ...oracle(page.expected, fields), ...free };
    await learner.learn(learning, decision, { body: page.html, url: page.url }, data, {
      url: page.url,
      pageId,
    });
    return { kind: decision.check ? 'check' : 'model', template: decision.template, urlShape, free };
  }

  /** The template a page answered by an extractor belongs to (matched in the pool, or by the store). */
  async function templateOf(key: Parameters<typeof store.shape>[0], reading: TemplateReading | undefined) {
    if (reading?.template) return reading.template;
    const index = await store.shape(key);
    return reading && index ? (bestTemplate(reading.sketch, index.templates)?.template.key ?? null) : null;
  }

  /** The extractor documents a job made. */
  async function documents(jobId: string): Promise<number> {
    return (await store.listForScope(TENANT, `job:${jobId}`, { limit: 1, offset: 0 })).total;
  }

  return { crawl, documents, store, reads: memory.reads };
}
