// A crawl's queued pages several at a time, as one crawlPages activity: fewer activities, so fewer history
// events and less of the worker's Temporal work per page. A batch holds a few slots of the crawl's concurrency
// and runs three times as many pages through them, one starting as another ends. Each page keeps its own seq, page id and events;
// its result comes back on its own promise and goes on as a single page's would. A page the retry policy
// would have run again (or every page, when the batch itself fails) runs again alone as crawlPage.
import { ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { DeferredActivity } from '../activities/common/tenant-share.js';
import type {
  BatchPage,
  BatchPageResult,
  CrawlPagesInput,
  CrawlPagesResult,
} from '../activities/crawl/crawl-pages.js';
import type { CrawlPageInput, CrawlPageResult } from '../activities/crawl/crawl-types.js';
import type { Activities } from '../activities/index.js';
import type { CrawlRunOptions } from '../shared/schemas/job-spec.js';
import { crawlPagePolicy, crawlPagesPolicy, retriedBy } from './policies.js';

const { crawlPage } = proxyActivities<Activities>(crawlPagePolicy);
const { crawlPages } = proxyActivities<Activities>(crawlPagesPolicy);

/** Pages a batch holds at most. */
export const MAX_BATCH_PAGES = 15;
/** Pages a batch holds for each of its slots (pages it runs at a time). */
const PAGES_PER_SLOT = 3;
/**
 * A batch's bound on its result's links, in URL characters, shared equally by its pages: a page alone may
 * find MAX_LINK_CHARS_PER_PAGE (256 KiB), and a page of a batch that finds more than its share runs again
 * alone (before its model is asked). So a batch's result stays under ~600 KB whatever its pages hold, far below
 * Temporal's 2 MB (real pages' results are a few KB); contents never travel in it.
 */
export const BATCH_LINK_CHARS = 512 * 1024;
/** A crawl keeps about this many batches in flight, so one ending lets the next start while others run. */
const BATCHES_IN_FLIGHT = 2;

/**
 * Slots (pages at a time) a batch of the crawl takes at most; 1 (no batches) when its domains' pages must
 * start apart, or its concurrency is under 4.
 */
export function batchSlotsOf(opts: CrawlRunOptions): number {
  if (opts.delay_ms > 0) return 1;
  return Math.max(1, Math.floor(opts.concurrency / BATCHES_IN_FLIGHT));
}

/**
 * Pages a batch of `slots` slots holds at most in a crawl of `maxPages`: a small crawl still spans some twenty
 * batches or more, so that several workers share it and its last batch is short.
 */
export const batchPagesOf = (slots: number, maxPages: number) =>
  Math.min(MAX_BATCH_PAGES, slots * PAGES_PER_SLOT, Math.max(slots, Math.ceil(maxPages / 20)));

/** What differs from page to page (activities/crawl/crawl-pages.ts's BatchPage). */
const PAGE_KEYS = [
  'node',
  'pageId',
  'url',
  'depth',
  'parentUrl',
  'discover',
  'markSeen',
  'eventSeq',
  'eventId',
  'revises',
  'stored',
] as const satisfies readonly (keyof BatchPage)[];

/**
 * Starts the pages (their inputs as crawlPage would take them, all of one crawl) as one activity running
 * `running` of them at a time, and returns each page's first result: its own, a `deferred` one when its
 * tenant's share had no slot for it, or that of its run alone when it failed as a retry would follow. A page
 * that failed for good throws its failure; a cancellation of the batch is thrown by every page's promise.
 * `ended` settles when the activity does (its slots are free again).
 */
export function crawlBatch(
  inputs: CrawlPageInput[],
  running: number,
): { results: Promise<CrawlPageResult>[]; ended: Promise<unknown> } {
  const batch = crawlPages(batchInputOf(inputs, running));
  return {
    results: inputs.map((input, i) => resultOf(batch, i, input)),
    ended: batch.then(
      () => undefined,
      () => undefined,
    ),
  };
}

function batchInputOf(inputs: CrawlPageInput[], running: number): CrawlPagesInput {
  const shared: Record<string, unknown> = {
    ...inputs[0],
    batchLinkChars: Math.floor(BATCH_LINK_CHARS / inputs.length),
    running,
  };
  for (const key of PAGE_KEYS) delete shared[key];
  const pages = inputs.map((input) => {
    const page: Record<string, unknown> = {};
    for (const key of PAGE_KEYS) if (input[key] !== undefined) page[key] = input[key];
    return page as unknown as BatchPage;
  });
  return { ...(shared as Omit<CrawlPagesInput, 'pages'>), pages };
}

async function resultOf(
  batch: Promise<CrawlPagesResult>,
  i: number,
  input: CrawlPageInput,
): Promise<CrawlPageResult> {
  let result: BatchPageResult | DeferredActivity | undefined;
  try {
    const all = await batch;
    result = Array.isArray(all) ? all[i] : all;
  } catch (err) {
    if (isCancellation(err)) throw err;
    result = undefined; // the batch itself failed (its worker died, say): every page runs again alone
  }
  if (result && result.outcome !== 'failed' && result.outcome !== 'alone') return result;
  if (result?.outcome === 'failed' && !retriedBy(crawlPagePolicy, result))
    throw ApplicationFailure.nonRetryable(result.message, result.category);
  return crawlPage({ ...input, rerun: true });
}
