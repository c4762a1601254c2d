// What a thread of the HTML pool runs: the cleaner chain, a crawl page's link discovery and cleaning (one
// parse for both), and analyze's structural reading of a page. Strings in, plain data out: results cross the
// thread boundary by structured clone, and errors come back as data so their category survives the crossing.
import type { MessagePort } from 'node:worker_threads';
import { load } from 'cheerio';
import { type DiscoveredLink, discoverLinks, type FollowRules } from '../../../shared/crawl/links.js';
import { CategorizedError, type ErrorData, errorData } from '../../../shared/errors.js';
import type { FieldCandidates } from '../../../shared/learned-extractor.js';
import { bestTemplate, type TemplateExemplars } from '../../../shared/template-sketch.js';
import { type CleanContext, type CleanerStep, runChain } from '../cleaners/index.js';
import { learnFromAnswer } from '../learned/dom.js';
import { applyExtractor, type Extraction } from '../learned/read.js';
import { structureSketch } from '../learned/structure.js';
import type { LearnableField, Page } from '../learned/values.js';
import { type PageSignals, scanPage } from '../page-signals.js';
import { analyzeStructure, type PageStructure } from '../page-structure/page-structure.js';
import { readStructuredData, type StructuredItem } from '../structured-data/read.js';

export interface CleanTask {
  kind: 'clean';
  body: string;
  contentType: string;
  baseUrl: string;
  chain: CleanerStep[];
}

/** Cleaning plus the page's structured data (JSON-LD, microdata, meta), from one parse. */
export interface CleanReadTask extends Omit<CleanTask, 'kind'> {
  kind: 'clean-read';
}

export interface CrawlPageTask {
  kind: 'crawl-page';
  body: string;
  contentType: string;
  url: string;
  chain: CleanerStep[];
  /** null: no link discovery on this page. */
  rules: FollowRules | null;
  seedUrl: string;
  /** Whether to read the page's structured data too (the job's structured_data switch). */
  readStructured?: boolean;
  /**
   * Learned extractors: the page's structure is sketched and matched against its URL shape's templates;
   * when the one it matches is verified (its candidates given), that extractor is applied.
   */
  learned?: {
    fields: LearnableField[];
    templates: (TemplateExemplars & { fields?: FieldCandidates })[];
  };
}

/** What a model's answer on a page teaches the template's extractor (activities/reading/learned/dom.ts). */
export interface LearnTask {
  kind: 'learn';
  body: string;
  /** The page's final URL: relative links are read against it. */
  url: string;
  fields: LearnableField[];
  data: Record<string, unknown>;
  known: FieldCandidates | null;
  /** Also derive candidates from this page alone (where learning restarts if a check fails). */
  derive: boolean;
}

/** A learned extractor applied to a page. */
export interface ApplyTask {
  kind: 'apply';
  body: string;
  url: string;
  fields: LearnableField[];
  known: FieldCandidates;
}

/** The page's structure sketch, the known template it matched, and what that template's extractor read. */
export interface TemplateReading {
  sketch: string;
  /** The matched template's key (null: none is alike). */
  template: string | null;
  extraction?: Extraction;
}

export interface StructureTask {
  kind: 'structure';
  body: string;
  url: string;
}

/** Whether a page has an element matching the selector (a stored site's logged-out sign). */
export interface MatchTask {
  kind: 'match';
  body: string;
  selector: string;
}

export type HtmlTask =
  | MatchTask
  | CleanTask
  | CleanReadTask
  | CrawlPageTask
  | StructureTask
  | LearnTask
  | ApplyTask;

export interface HtmlResults {
  match: boolean;
  clean: string;
  'clean-read': { cleaned: string; structured: StructuredItem[] };
  'crawl-page': {
    links: DiscoveredLink[];
    cleaned: string;
    structured: StructuredItem[];
    template?: TemplateReading;
  };
  learn: { kept: FieldCandidates; fresh?: FieldCandidates };
  apply: Extraction;
  structure: { structure: PageStructure; signals: PageSignals };
}

export type TaskOutcome<T> = { ok: true; value: T } | { ok: false; error: ErrorData };

/** Runs the cleaner chain over a page body; a page with nothing readable left is a failure. */
export function cleanBody(
  body: string,
  contentType: string,
  baseUrl: string,
  chain: CleanerStep[],
  parsed?: CleanContext['parsed'],
): string {
  const cleaned = contentType === 'text/plain' ? body : runChain(body, chain, { baseUrl, parsed });
  if (!cleaned.trim()) throw new CategorizedError('insufficient_content', 'the page has no readable content');
  return cleaned;
}

/** One parse for link discovery and cleaning; links first, since cleaning changes the document. */
function crawlPage(task: CrawlPageTask): HtmlResults['crawl-page'] {
  const parsed = task.contentType === 'text/plain' ? undefined : { html: task.body, $: load(task.body) };
  let links: DiscoveredLink[] = [];
  if (task.rules) {
    try {
      links = discoverLinks(parsed?.$ ?? task.body, task.url, task.rules, task.seedUrl);
    } catch (err) {
      if (err instanceof CategorizedError) throw err;
      throw new CategorizedError('invalid_input', `a follow rule is not usable: ${(err as Error).message}`);
    }
  }
  // Structured data and the template are read before cleaning, which changes the document.
  const structured = task.readStructured && parsed ? readStructuredData(parsed.$) : [];
  const template =
    task.learned && parsed ? readTemplate({ $: parsed.$, url: task.url }, task.learned) : undefined;
  const cleaned = cleanBody(task.body, task.contentType, task.url, task.chain, parsed);
  return { links, structured, cleaned, ...(template ? { template } : {}) };
}

function readTemplate(page: Page, learned: NonNullable<CrawlPageTask['learned']>): TemplateReading {
  const sketch = structureSketch(page.$);
  const match = bestTemplate(sketch, learned.templates)?.template;
  if (!match) return { sketch, template: null };
  return match.fields
    ? { sketch, template: match.key, extraction: applyExtractor(page, learned.fields, match.fields) }
    : { sketch, template: match.key };
}

function learn(task: LearnTask): HtmlResults['learn'] {
  const page = { $: load(task.body), url: task.url };
  const kept = learnFromAnswer(page, task.fields, task.data, task.known);
  if (!task.derive || task.known === null) return { kept };
  return { kept, fresh: learnFromAnswer(page, task.fields, task.data, null) };
}

function cleanRead(task: CleanReadTask): HtmlResults['clean-read'] {
  if (task.contentType === 'text/plain')
    return { cleaned: cleanBody(task.body, task.contentType, task.baseUrl, task.chain), structured: [] };
  const parsed = { html: task.body, $: load(task.body) };
  const structured = readStructuredData(parsed.$);
  return { structured, cleaned: cleanBody(task.body, task.contentType, task.baseUrl, task.chain, parsed) };
}

/** One task, in the thread that took it (the pipeline's tests run it in their own). */
export function runTask(task: HtmlTask): HtmlResults[HtmlTask['kind']] {
  switch (task.kind) {
    case 'match':
      return load(task.body).root().find(task.selector).length > 0;
    case 'clean':
      return cleanBody(task.body, task.contentType, task.baseUrl, task.chain);
    case 'clean-read':
      return cleanRead(task);
    case 'crawl-page':
      return crawlPage(task);
    case 'structure':
      return { structure: analyzeStructure(task.body, task.url), signals: scanPage(task.body) };
    case 'learn':
      return learn(task);
    case 'apply':
      return applyExtractor({ $: load(task.body), url: task.url }, task.fields, task.known);
  }
}

/** The pool's entry point. `started` tells the pool the task left the queue, which starts its time limit. */
export default async function runHtmlTask({
  task,
  started,
}: {
  task: HtmlTask;
  started: MessagePort;
}): Promise<TaskOutcome<unknown>> {
  started.postMessage(null);
  started.close();
  try {
    return { ok: true, value: runTask(task) };
  } catch (err) {
    // Recursive DOM code (parse5, domino, Readability) runs out of stack on pages nested thousands deep.
    const error = errorData(err, 'the page is nested too deeply to process');
    if (error) return { ok: false, error };
    throw err;
  }
}
