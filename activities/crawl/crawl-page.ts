// The crawlPage activity (and crawlPages' run of each page): one page of a crawl as one activity, the page
// kept in memory from fetch to result (crawlOnePage, crawl-pipeline.ts), with the worker's engines and
// stores as its ports. One activity per page keeps a 10,000-page crawl's history small and its overhead
// low. Here only what Temporal asks: cancellation, attempts, a budget's refusal as an outcome, deferral.
import { CrawlUrlStore } from '../../shared/store/crawl-urls.js';
import { budgetRefusal, categorized } from '../common/failure.js';
import { currentPageRun } from '../extraction/extraction-types.js';
import { pagePorts } from '../extraction/page-ports.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { robotsAllow } from '../fetching/robots.js';
import { makeTemplateLearner } from '../reading/learned/learner.js';
import { crawlOnePage } from './crawl-pipeline.js';
import type { AloneResult, CrawlPageInput, CrawlPageResult, CrawlPorts } from './crawl-types.js';

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

  function run(input: CrawlPageInput & { batchLinkChars: undefined }): Promise<CrawlPageResult>;
  function run(input: CrawlPageInput): Promise<CrawlPageResult | AloneResult>;
  async function run(input: CrawlPageInput): Promise<CrawlPageResult | AloneResult> {
    const page = currentPageRun();
    return categorized(async () => {
      try {
        const result = await crawlOnePage(ports, input, page);
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
    /** A page alone: the whole bound on its links. */
    crawlPage: async (input: CrawlPageInput): Promise<CrawlPageResult> =>
      run({ ...input, batchLinkChars: undefined }),
    /** A page of a batch (crawl-pages.ts): `alone` when its links are over its share of the batch's bound. */
    crawlPageOfBatch: (input: CrawlPageInput): Promise<CrawlPageResult | AloneResult> => run(input),
  };
}
