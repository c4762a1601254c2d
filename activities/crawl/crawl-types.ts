// The types of a crawl page's way through the pipeline, below the files that take part in it
// (crawl-pipeline.ts, crawl-page.ts, crawl-pages.ts) and the workflows that schedule it: its
// input and result, and the ports a crawl page adds to an extract's (extraction/extraction-types.ts).
import type { FollowRules } from '../../shared/crawl/links.js';
import type { JobEvent, PageCompletedData } from '../../shared/events.js';
import type { CrawlJobInput, StoredSource } from '../../shared/schemas/job-spec.js';
import type { AnsweredPage, HeldAnswers } from '../../shared/store/learned-extractors.js';
import type { NewPage } from '../../shared/store/pages.js';
import type { DeferredActivity } from '../common/tenant-share.js';
import type { PagePorts } from '../extraction/extraction-types.js';
import type { TemplateLearner } from '../reading/learned/learner.js';

/** The crawl's settings every page of it runs with, as the job's spec has them. */
type CrawlSettings = Pick<
  CrawlJobInput,
  | 'jobId'
  | 'tenantId'
  | 'fetchMode'
  | 'actions'
  | 'cleanerChain'
  | 'schema'
  | 'captureDebug'
  | 'llm'
  | 'structuredData'
  | 'learnExtractors'
  | 'siteId'
  | 'budget'
  | 'maxAgeMs'
>;

/** A page of the crawl: the crawl's settings and what is the page's own. */
export interface CrawlPageInput extends CrawlSettings {
  node: number;
  pageId: string;
  url: string;
  depth: number;
  parentUrl: string | null;
  seedUrl: string;
  rules: FollowRules;
  respectRobots: boolean;
  /** Whether to look for links at all (false at max depth, except pagination). */
  discover: { follow: boolean; next: boolean };
  /** Whether the page marks its own URL as seen (seeds); other pages were marked by their parent. */
  markSeen?: boolean;
  eventSeq: number;
  eventId: string;
  /** A page re-done by the model after its learned extractor failed a check: the result it replaces. */
  revises?: PageCompletedData['revises'];
  /** Re-extract, or a retry without a fetch: the earlier job's stored page instead of the network. */
  stored?: StoredSource;
  /** Run again alone after its run in a batch (crawl-pages.ts) failed: that run may have queued its links. */
  rerun?: boolean;
  /**
   * In a batch: the page's share of the batch's bound on its result's links (in URL characters). A page
   * that finds more answers `alone` before its model is asked, and runs again alone with the whole bound.
   */
  batchLinkChars?: number;
}

/** A page of a batch whose links are over its share of the batch's bound: it runs again alone. */
export interface AloneResult {
  outcome: 'alone';
}

/**
 * What a crawl batch's pages (or a lone crawl page) leave to be written together when it ends, before it
 * answers (crawl-pages.ts): the pages fetched, for the page store, the pages its learned extractors
 * answered, and its pages' result events (one insert for the batch instead of one or so a page). Its pages'
 * results reach the crawl only with the batch's, and a batch that fails runs every page again, so no page is
 * counted done without them.
 */
export interface HeldWrites {
  pages: NewPage[];
  answers: HeldAnswers;
  events: JobEvent[];
}

/**
 * The page bodies a batch holds at most (15 pages of up to FETCH_MAX_BYTES would be 75 MB a batch): a page
 * that would take it past this is stored as it is fetched, as a lone page's was, and the batch holds on.
 */
export const HELD_PAGE_BYTES = 2 * 1024 * 1024;

/** Whether the batch holds the page, to store it with the others when it ends (else it is stored at once). */
export function holdPage(held: HeldWrites, page: NewPage): boolean {
  const bytes = held.pages.reduce((sum, p) => sum + p.bytes, 0);
  if (held.pages.length > 0 && bytes + page.bytes > HELD_PAGE_BYTES) return false;
  held.pages.push(page);
  return true;
}

/** A page to extract again, by the model (its template's learned extractor failed a later check). */
export type RedoPage = AnsweredPage;

/** A page done: the links it queued, and what its model calls took. */
export interface CompletedPage {
  outcome: 'completed';
  links: { url: string; kind: 'follow' | 'next' }[];
  inputTokens: number;
  outputTokens: number;
  /** Pages to re-do (a learned extractor answered them, then failed a check on this page). */
  redo?: RedoPage[];
}

export type CrawlPageResult =
  | CompletedPage
  | { outcome: 'skipped'; category: 'robots_disallowed'; message: string }
  /** The page's model call was refused by a budget (the crawl then starts no new pages). */
  | { outcome: 'budget_exhausted'; message: string }
  | DeferredActivity;

/**
 * What the pipeline answers of a crawl page: done, skipped by robots.txt, `alone` (a batch's page over its
 * share), or `learning` (its template's first pages are teaching its extractor: the activity defers it).
 */
export type CrawlPipelineResult =
  | Exclude<CrawlPageResult, DeferredActivity | { outcome: 'budget_exhausted' }>
  | AloneResult
  | { outcome: 'learning' };

/** The URLs a crawl's pages queued, each marked by the page (map node) that queued it first. */
export interface SeenUrls {
  /** Marks each URL as queued by `node`; answers those some page had marked before. */
  mark(jobId: string, node: number, urls: readonly string[]): Promise<Set<string>>;
  /** The node that marked the URL (null: none). */
  markedBy(jobId: string, url: string): Promise<number | null>;
}

/** A crawl page's ports: an extract page's, and robots.txt, the job's seen URLs and learned extractors. */
export interface CrawlPorts extends PagePorts {
  robotsAllow(url: string): Promise<boolean>;
  seen: SeenUrls;
  /** Learned extractors (null: the worker keeps none; every page goes to the model). */
  learner: TemplateLearner | null;
}
