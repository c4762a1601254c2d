// createActivities(deps): the worker registers these; workflows import their types only.
import { makeAnalyzeJob } from './analyze/analyze-job.js';
import { makeCrawlFrontier } from './crawl/crawl-frontier.js';
import { makeCrawlPage } from './crawl/crawl-page.js';
import { makeCrawlPages } from './crawl/crawl-pages.js';
import { makeMapSite } from './crawl/map/map-site.js';
import { makeDeliverWebhook } from './delivery/deliver-webhook.js';
import { makeMonitorActivities } from './delivery/monitor-run.js';
import { makeExtractPage } from './extraction/extract-page.js';
import { makeRecordEvents } from './extraction/record-events.js';
import type { ActivityDeps } from './fetching/deps.js';

export function createActivities(deps: ActivityDeps) {
  const { crawlPage, crawlPageOfBatch, batchWrites } = makeCrawlPage(deps);
  return {
    recordEvents: makeRecordEvents(deps),
    extractPage: makeExtractPage(deps),
    crawlPage,
    crawlPages: makeCrawlPages(crawlPageOfBatch, batchWrites),
    ...makeCrawlFrontier(deps),
    deliverWebhook: makeDeliverWebhook(deps),
    analyzeJob: makeAnalyzeJob(deps),
    ...makeMonitorActivities(deps),
    mapSite: makeMapSite(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
