// createActivities(deps): the worker registers these; workflows import their types only.
import { makeAnalyzeJob } from './analyze/analyze-job.js';
import { makeCrawlFrontier } from './crawl-frontier.js';
import { makeCrawlPage } from './crawl-page.js';
import { makeCrawlPages } from './crawl-pages.js';
import { makeDeliverWebhook } from './deliver-webhook.js';
import type { ActivityDeps } from './deps.js';
import { makeExtractPage } from './extract-page.js';
import { makeMapSite } from './map/map-site.js';
import { makeMonitorActivities } from './monitor-run.js';
import { makeRecordEvents } from './record-events.js';

export function createActivities(deps: ActivityDeps) {
  const { crawlPage, crawlPageOfBatch } = makeCrawlPage(deps);
  return {
    recordEvents: makeRecordEvents(deps),
    extractPage: makeExtractPage(deps),
    crawlPage,
    crawlPages: makeCrawlPages(crawlPageOfBatch),
    ...makeCrawlFrontier(deps),
    deliverWebhook: makeDeliverWebhook(deps),
    analyzeJob: makeAnalyzeJob(deps),
    ...makeMonitorActivities(deps),
    mapSite: makeMapSite(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
