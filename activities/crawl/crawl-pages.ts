// Several queued pages of one crawl as one activity: each page runs the crawl-page code as it would alone
// (its own seq, page id and events), `running` of them at a time (a new one starts as one ends), and the
// activity answers one result per page (the workflow bounds a batch's size, and so its result's:
// workflows/crawl-batches.ts). A crawl schedules fewer activities, so fewer history events and less of the
// worker's Temporal work per page. A page's failure does not fail the others: it comes back as `failed`, and
// the workflow decides whether the page's retry policy would have retried it (then it runs again alone) or
// it failed for good.
import { type ErrorCategory, isErrorCategory } from '../../shared/errors.js';
import { currentActivity } from '../common/activity-context.js';
import { categorized, toFailure } from '../common/failure.js';
import type { DeferredActivity } from '../common/tenant-share.js';
import type {
  AloneResult,
  CompletedPage,
  CrawlPageInput,
  CrawlPageResult,
  HeldWrites,
  RedoPage,
} from './crawl-types.js';

/** What differs from page to page of a batch; the rest of a page's input is the batch's. */
export type BatchPage = Pick<
  CrawlPageInput,
  | 'node'
  | 'pageId'
  | 'url'
  | 'depth'
  | 'parentUrl'
  | 'discover'
  | 'markSeen'
  | 'eventSeq'
  | 'eventId'
  | 'revises'
  | 'stored'
>;

/**
 * The pages, and what they share. The worker's tenant share admits as many pages as its tenant has slots
 * free and answers the rest `deferred` (worker/interceptors.ts).
 */
export interface CrawlPagesInput extends Omit<CrawlPageInput, keyof BatchPage> {
  pages: BatchPage[];
  /** Pages run at a time (absent: all of them at once); the tenant share may lower it (worker/interceptors.ts). */
  running?: number;
}

/** A page of a batch whose run threw: `retryable` as the failure says (the workflow's policy may disagree). */
export interface FailedBatchPage {
  outcome: 'failed';
  category: ErrorCategory;
  message: string;
  retryable: boolean;
}

export type BatchPageResult = CrawlPageResult | FailedBatchPage | AloneResult;

/** One result per page, in the pages' order; or, when its tenant's share admits none, the batch deferred. */
export type CrawlPagesResult = BatchPageResult[] | DeferredActivity;

/**
 * What a batch's pages leave to be written together when it ends, before it answers (crawl-types.ts):
 * `record` writes the fetched pages, and the learned extractors' answered pages of its `completed` pages
 * (the others run again), and answers the pages to re-do (their extractor failed a check meanwhile).
 */
export interface BatchWrites {
  hold(): HeldWrites;
  record(held: HeldWrites, completed: ReadonlySet<string>): Promise<RedoPage[]>;
  /** Writes the result events held so far at once (a cancelled batch answers before its pages end). */
  recordEvents(held: HeldWrites): Promise<void>;
}

export function makeCrawlPages(
  crawlPage: (input: CrawlPageInput, held?: HeldWrites) => Promise<CrawlPageResult | AloneResult>,
  writes: BatchWrites | null = null,
) {
  // The worker heartbeats for it while it runs (worker/interceptors.ts); a cancellation ends it at once.
  return async function crawlPages(input: CrawlPagesInput): Promise<CrawlPagesResult> {
    const { pages, running, ...shared } = input;
    const signal = currentActivity()?.cancellationSignal;
    const results: BatchPageResult[] = [];
    const held = writes?.hold();
    let next = 0;
    // Each lane runs the next page not yet started until none is left (a cancelled batch starts none).
    const lane = async () => {
      for (let i = next++; i < pages.length && !signal?.aborted; i = next++)
        results[i] = await crawlPage({ ...shared, ...(pages[i] as BatchPage) }, held).catch(failedPage);
    };
    const lanes = Math.max(1, Math.min(running ?? pages.length, pages.length));
    const all = Promise.all(Array.from({ length: lanes }, lane)).then(async () => {
      if (writes && held) {
        const completed = new Set(
          pages.filter((_, i) => results[i]?.outcome === 'completed').map((p) => p.pageId),
        );
        withRedo(results, await writes.record(held, completed));
      }
      return results;
    });
    // A cancelled page stops on its own (each step honours the signal); the batch does not wait for the
    // slowest of them: the workflow records every page of a cancelled batch as skipped in its seq, except
    // those whose result is written already (the ones done are written before it answers).
    const cancelled = (reason: unknown) =>
      (writes && held ? writes.recordEvents(held).catch(() => undefined) : Promise.resolve()).then(() => {
        throw reason;
      });
    return categorized(() => (signal ? Promise.race([all, abortOf(signal).catch(cancelled)]) : all));
  };
}

/**
 * Pages to re-do go with the batch's first completed page (the crawl queues every completed page's); with
 * none completed, the pages that asked failed and run again anyway.
 */
function withRedo(results: BatchPageResult[], redo: RedoPage[]): void {
  if (redo.length === 0) return;
  const first = results.find((r): r is CompletedPage => r?.outcome === 'completed');
  if (first) first.redo = [...(first.redo ?? []), ...redo];
}

function failedPage(err: unknown): FailedBatchPage {
  const failure = toFailure(err);
  const category = isErrorCategory(failure.type) ? failure.type : 'unknown';
  return { outcome: 'failed', category, message: failure.message, retryable: !failure.nonRetryable };
}

/** Rejects when the signal aborts (categorized() then rethrows the activity's cancellation). */
function abortOf(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
