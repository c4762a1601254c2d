// A crawl page's outcome into the job: counted, recorded in the seq reserved for it, its links admitted
// and the pages a failed extractor check showed wrong queued to be re-done. Workflow code: no I/O.
import type { CrawlPageResult } from '../activities/crawl/crawl-types.js';
import type { CrawlRunOptions } from '../shared/schemas/job-spec.js';
import { admitLinks, type CrawlState, pageEvent, type QueuedPage } from './crawl-frontier.js';
import { categoryOf } from './failures.js';
import type { JobLog, Slot } from './job-events.js';

/**
 * A page's outcome into the job: counted, recorded in its seq (a skipped page), its links admitted and
 * recorded (a completed one), and the pages a failed extractor check showed wrong queued first to be re-done.
 */
export async function recordOutcome(
  crawl: { state: CrawlState; opts: CrawlRunOptions; log: JobLog },
  page: QueuedPage,
  at: { pageId: string; slot: Slot },
  result: Exclude<CrawlPageResult, { outcome: 'deferred' }>,
): Promise<void> {
  const { state, opts, log } = crawl;
  const { pageId, slot } = at;
  if (result.outcome === 'budget_exhausted') {
    // Only new activity outcomes take this path: runs recorded before budgets replay unchanged.
    if (!page.redo) state.skipped++;
    state.budgetExhausted ??= { message: result.message };
    await log.record({
      slot,
      body: pageEvent('page.skipped', page, pageId, 'quota_exceeded', result.message),
    });
  } else if (result.outcome === 'skipped') {
    state.skipped++;
    await log.record({
      slot,
      body: pageEvent('page.skipped', page, pageId, result.category, result.message),
    });
  } else {
    // A re-done page replaces its earlier result: it is not one more page.
    if (!page.redo) state.completed++;
    const nodes = admitLinks(state, opts, page, result.links);
    if (nodes.length > 0) await log.record({ type: 'crawl.discovered', data: { nodes } });
    // Pages a failed check showed wrong run again, by the model, before the rest of the frontier.
    for (const redo of result.redo ?? [])
      state.frontier.unshift({
        node: redo.node,
        url: redo.url,
        depth: redo.depth,
        parentUrl: redo.parentUrl,
        redo: {
          pageId: redo.pageId,
          revises: { seq: redo.seq, data_source: redo.source, values: redo.values },
        },
      });
  }
}

/** A page that failed for good: counted (a re-done page is not one more) and its page.failed event made. */
export function failedPageEvent(state: CrawlState, page: QueuedPage, pageId: string, err: unknown) {
  const { category, message } = categoryOf(err);
  if (!page.redo) state.failed++;
  state.lastFailure = { category, message };
  return pageEvent('page.failed', page, pageId, category, message);
}
