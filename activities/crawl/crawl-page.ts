// The crawlPage activity (and crawlPages' run of each page): one page of a crawl as one activity, the page
// kept in memory from fetch to result (crawlOnePage, crawl-pipeline.ts), with the worker's engines and
// stores as its ports. One activity per page keeps a 10,000-page crawl's history small and its overhead
// low. Here only what Temporal asks: cancellation, attempts, a budget's refusal as an outcome, deferral.
import { CrawlUrlStore } from '../../shared/store/crawl-urls.js';
import { HeldAnswers } from '../../shared/store/learned-extractors.js';
import { budgetRefusal, categorized } from '../common/failure.js';
import { currentPageRun } from '../extraction/extraction-types.js';
import { pagePorts } from '../extraction/page-ports.js';
import { appendPageEvents } from '../extraction/record-events.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { robotsAllow } from '../fetching/robots.js';
import { makeTemplateLearner } from '../reading/learned/learner.js';
import type { BatchWrites } from './crawl-pages.js';
import { crawlOnePage } from './crawl-pipeline.js';
import type { AloneResult, CrawlPageInput, CrawlPageResult, CrawlPorts, HeldWrites } from './crawl-types.js';

/** How long a page waits while the first pages of its template teach its extractor (doubled each time). */
const LEARNING_WAIT_MS = 500;

/** A crawl page's ports as the worker has them. */
export function crawlPorts(deps: ActivityDeps): CrawlPorts {
  const { config, html } = deps;
  const robots = { allowPrivate: config.ALLOW_PRIVATE_ADDRESSES, timeoutMs: config.FETCH_TIMEOUT_MS };
  return {
    ...pagePorts(deps),
    robotsAllow: (url) => robotsAllow(url, robots),
    seen: new CrawlUrlStore(deps.events.database()),
    learner: deps.learned ? makeTemplateLearner(deps.learned, () => html) : null,
  };
}

export function makeCrawlPage(deps: ActivityDeps) {
  const ports = crawlPorts(deps);
  const writes = batchWrites(deps);

  function run(
    input: CrawlPageInput & { batchLinkChars: undefined },
    held?: HeldWrites,
  ): Promise<CrawlPageResult>;
  function run(input: CrawlPageInput, held?: HeldWrites): Promise<CrawlPageResult | AloneResult>;
  async function run(input: CrawlPageInput, held?: HeldWrites): Promise<CrawlPageResult | AloneResult> {
    const page = currentPageRun();
    return categorized(async () => {
      try {
        const result = await crawlOnePage(ports, input, page, held);
        // Its template's first pages are teaching the extractor: the page comes back after a durable
        // timer, when the extractor is likely verified.
        return result.outcome === 'learning'
          ? { outcome: 'deferred', retryAfterMs: LEARNING_WAIT_MS }
          : result;
      } catch (err) {
        const refused = budgetRefusal(err);
        if (refused === null) throw err;
        return { outcome: 'budget_exhausted', message: refused };
      }
    });
  }

  return {
    // The worker heartbeats for it while it runs (worker/interceptors.ts).
    /**
     * A page alone: the whole bound on its links. The page fetched and its learned extractor's answer are
     * written once its result is, as a batch's (so a check that failed meanwhile has the page re-done).
     */
    crawlPage: async (input: CrawlPageInput): Promise<CrawlPageResult> => {
      const held = writes.hold();
      const result = await run({ ...input, batchLinkChars: undefined }, held).catch(async (err: unknown) => {
        // The page fetched is kept all the same (a retry may find it by max_age), as when stored at once.
        await writes.record(held, new Set()).catch(() => undefined);
        throw err;
      });
      const completed = new Set(result.outcome === 'completed' ? [input.pageId] : []);
      const redo = await writes.record(held, completed);
      if (redo.length > 0 && result.outcome === 'completed') result.redo = [...(result.redo ?? []), ...redo];
      return result;
    },
    /**
     * A page of a batch (crawl-pages.ts): `alone` when its links are over its share of the batch's bound.
     * The page fetched and its learned extractor's answer are held with the batch's, written when it ends.
     */
    crawlPageOfBatch: (input: CrawlPageInput, held?: HeldWrites): Promise<CrawlPageResult | AloneResult> =>
      run(input, held),
    /** What a batch's pages hold and write when it ends. */
    batchWrites: writes,
  };
}

/**
 * What a batch (or a lone page) holds: its fetched pages, learned extractors' answers and result events,
 * written at its end.
 */
function batchWrites(deps: ActivityDeps): BatchWrites {
  const { pages, learned } = deps;
  const recordEvents = (held: HeldWrites) => appendPageEvents(deps, held.events.splice(0));
  return {
    hold: () => ({ pages: [], answers: new HeldAnswers(), events: [] }),
    async record(held, completed) {
      const [, redo] = await Promise.all([
        pages?.saveAll(held.pages.splice(0)),
        learned ? learned.recordHeld(held.answers, completed) : [],
        recordEvents(held),
      ]);
      return redo;
    },
    recordEvents,
  };
}
