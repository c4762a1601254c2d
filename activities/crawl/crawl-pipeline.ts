// A crawl's page through the page pipeline (extraction/page-pipeline.ts), as plain functions over its ports
// (crawl-types.ts): robots.txt, the page (stored or fetched), one read for links, cleaning, structured data
// and its template, then structured data → learned extractor or model → provenance → its result event, and
// last the links no other page queued. Nothing of the page is stored but its result.
import type { ValidateFunction } from 'ajv';
import type { DiscoveredLink, FollowRules } from '../../shared/crawl/links.js';
import { toJsonSchema } from '../../shared/schema-input.js';
import type { AnsweredPage } from '../../shared/store/learned-extractors.js';
import { answerPage, planOf } from '../extraction/answer-page.js';
import type { PageRun } from '../extraction/extraction-types.js';
import { answerInputOf } from '../extraction/page-pipeline.js';
import { makeRecordPage, pageEvent } from '../extraction/record-events.js';
import { validatorFor } from '../extraction/schema-validators.js';
import type { StructuredPlan } from '../reading/structured-data/answer.js';
import {
  type CrawlPageInput,
  type CrawlPipelineResult,
  type CrawlPorts,
  type HeldWrites,
  holdPage,
} from './crawl-types.js';

/**
 * A crawl page: robots.txt, fetch, read, answer, record, and its new links. `held`: where the page to store
 * and the learned extractor's answered page are kept until its batch ends (crawl-pages.ts).
 */
export async function crawlOnePage(
  ports: CrawlPorts,
  input: CrawlPageInput,
  run: PageRun,
  held?: HeldWrites,
): Promise<CrawlPipelineResult> {
  const { learner } = ports;
  // Seeds are seen by themselves; other pages were marked by the page that queued them.
  if (input.markSeen !== false) await firstSeen(ports, input, [input.url], run);
  // A stored page makes no request to the site, robots.txt included (it was obeyed when it was fetched).
  const stored = await ports.fetcher.stored(input);
  if (!stored && input.respectRobots && !(await ports.robotsAllow(input.url)))
    return { outcome: 'skipped', category: 'robots_disallowed', message: 'robots.txt disallows this URL' };
  const fetched =
    stored ?? (await ports.fetcher.fetch(input, held ? (page) => holdPage(held, page) : undefined));
  const { doc } = fetched;
  const cleanStarted = Date.now();
  // A re-done page goes to the model whatever its template (its extractor failed a check).
  const learning = input.revises
    ? null
    : (learner?.pageOf({
        tenantId: input.tenantId,
        jobId: input.jobId,
        siteId: input.siteId,
        schema: input.schema,
        url: input.url,
        learn: input.learnExtractors,
      }) ?? null);
  // One task, one parse, for link discovery, cleaning and the page's template, under the reader's time
  // limit. The links are queued only once the page's result is stored.
  const templates = learning && learner ? await learner.templatesFor(learning) : undefined;
  const [{ links, cleaned, structured, template }] = await Promise.all([
    ports.reader.run(
      {
        kind: 'crawl-page',
        body: doc.body,
        contentType: doc.contentType,
        url: doc.url,
        chain: input.cleanerChain,
        rules: rulesFor(input),
        seedUrl: input.seedUrl,
        readStructured: input.structuredData !== false,
        ...(templates ? { learned: templates } : {}),
      },
      run.signal,
    ),
    // A page reused from the store is recorded as this job's before the model is asked (a fetched one is
    // held, and stored when its batch ends).
    fetched.saved,
  ]);
  const answerInput = answerInputOf(
    input,
    { ...input, jobType: 'crawl' },
    fetched,
    Date.now() - cleanStarted,
  );
  if (input.batchLinkChars !== undefined && linkChars(links) > input.batchLinkChars)
    return { outcome: 'alone' };
  // Structured data first; a learned extractor answers only what it leaves.
  const plan = planOf(answerInput, cleaned, structured);
  const decision =
    learning && learner && !(plan && !plan.rest)
      ? await learner.decide(learning, template, {
          doc: { body: doc.body, url: doc.url },
          pageId: input.pageId,
          answered: (fields) => answeredPage(input, plan, fields),
          valid: (name, value) => validField(input.schema, name, value),
          ...(held ? { held: held.answers } : {}),
        })
      : null;
  // Enough pages of its template are teaching it now: this one comes back later.
  if (decision?.kind === 'defer') return { outcome: 'learning' };
  // The extractor's answer: all of the page, or the fields it holds (the model is asked the rest); a
  // check asks the model for every field.
  const learned =
    decision?.kind === 'extractor' || (decision?.kind === 'model' && !decision.check)
      ? decision.extraction
      : undefined;
  const answer = await answerPage(ports, answerInput, cleaned, {
    plan,
    ...(learned ? { learned } : {}),
  }).catch(async (err: unknown) => {
    // A failed answer teaches nothing: its place among the template's learning pages is free again.
    if (learning && learner && decision) await learner.release(learning, decision, input.pageId);
    throw err;
  });
  const redo =
    learning && learner && decision?.kind === 'model'
      ? await learner.learn(learning, decision, { body: doc.body, url: doc.url }, answer.page.data, {
          url: input.url,
          pageId: input.pageId,
        })
      : [];
  // In a batch the event is held and written with its neighbours' when the batch ends (crawl-page.ts).
  if (held) held.events.push(pageEvent(input, answer.page));
  else await makeRecordPage(ports)(input, answer.page, 'deferred');
  return {
    outcome: 'completed',
    links: await unseen(ports, input, links, run),
    inputTokens: answer.result.inputTokens,
    outputTokens: answer.result.outputTokens,
    ...(redo.length > 0 ? { redo } : {}),
  };
}

/**
 * Keeps only URLs no other page of the job queued before. A URL already marked was queued by another page —
 * unless this is a retry of this page, whose earlier attempt (or run in a batch) may have marked it: only
 * then is its owner looked up, so a retried page keeps its own links.
 */
export async function firstSeen(
  ports: Pick<CrawlPorts, 'seen'>,
  input: Pick<CrawlPageInput, 'jobId' | 'node' | 'rerun'>,
  urls: string[],
  run: PageRun,
): Promise<Set<string>> {
  const { jobId, node } = input;
  const unique = [...new Set(urls)];
  const before = await ports.seen.mark(jobId, node, unique);
  const retry = input.rerun === true || run.retry;
  const fresh = new Set<string>();
  for (const url of unique) {
    if (!before.has(url)) fresh.add(url);
    else if (retry && (await ports.seen.markedBy(jobId, url)) === node) fresh.add(url);
  }
  return fresh;
}

/** The links no other page of the job queued before. */
async function unseen(
  ports: Pick<CrawlPorts, 'seen'>,
  input: CrawlPageInput,
  links: DiscoveredLink[],
  run: PageRun,
): Promise<DiscoveredLink[]> {
  if (links.length === 0) return [];
  const fresh = await firstSeen(
    ports,
    input,
    links.map((l) => l.url),
    run,
  );
  return links.filter((l) => fresh.has(l.url));
}

/**
 * The page as a learned extractor's answer remembers it, in case a later check finds it wrong: `fields`
 * the extractor answered, the structured data's first, the model's the rest.
 */
function answeredPage(input: CrawlPageInput, plan: StructuredPlan | null, fields: string[]): AnsweredPage {
  const fromData = new Set(plan?.mapping.answered ?? []);
  const structured = fromData.size;
  const learned = fields.filter((f) => !fromData.has(f)).length;
  const model = Math.max(0, input.schema.fields.length - structured - learned);
  const sources = [structured, learned, model].filter((n) => n > 0).length;
  return {
    node: input.node,
    url: input.url,
    depth: input.depth,
    parentUrl: input.parentUrl,
    pageId: input.pageId,
    seq: input.eventSeq,
    source: sources > 1 ? 'mixed' : 'learned_extractor',
    values: { structured_data: structured, learned_extractor: learned, model },
  };
}

/** The follow rules this page applies; null when it looks for no links. */
export function rulesFor(input: Pick<CrawlPageInput, 'discover' | 'rules'>): FollowRules | null {
  if (!input.discover.follow && !input.discover.next) return null;
  const rules: FollowRules = {
    ...input.rules,
    follow_selector: input.discover.follow ? input.rules.follow_selector : undefined,
    follow_pattern: input.discover.follow ? input.rules.follow_pattern : undefined,
    next_selector: input.discover.next ? input.rules.next_selector : undefined,
  };
  if (!rules.follow_selector && !rules.follow_pattern && !rules.next_selector) return null;
  return rules;
}

/**
 * Each field's validator, by the field: a batch's pages share their schema's objects, so its fields' JSON
 * Schemas are built and looked up once a batch, not once a value (a field's entry goes with its batch).
 */
const fieldValidators = new WeakMap<object, ValidateFunction>();

/** Whether one field's value fits the schema (a learned value that does not is left to the model). */
function validField(schema: CrawlPageInput['schema'], name: string, value: unknown): boolean {
  const field = schema.fields.find((f) => f.name === name);
  if (!field) return false;
  let validate = fieldValidators.get(field);
  if (!validate) {
    validate = validatorFor(toJsonSchema({ ...schema, fields: [field] }));
    fieldValidators.set(field, validate);
  }
  return validate({ [name]: value }) === true;
}

/** The URL characters of a page's links, as MAX_LINK_CHARS_PER_PAGE counts them. */
function linkChars(links: readonly { url: string }[]): number {
  let chars = 0;
  for (const link of links) chars += link.url.length;
  return chars;
}
