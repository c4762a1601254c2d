// createActivities(deps): the worker registers these; workflows import their types only.
import { makeAnalyzeJob } from './analyze/analyze-job.js';
import { makeAnalyzePage } from './analyze/analyze-page.js';
import { makeClassifyLinks } from './analyze/classify-links.js';
import { makeRecordAnalysis } from './analyze/record-analysis.js';
import { makeSuggestAnalysis } from './analyze/suggest-analysis.js';
import { makeCleanContent } from './clean-content.js';
import { makeCrawlFrontier } from './crawl-frontier.js';
import { makeCrawlPage } from './crawl-page.js';
import { makeCrawlPages } from './crawl-pages.js';
import { makeDeliverWebhook } from './deliver-webhook.js';
import type { ActivityDeps } from './deps.js';
import { makeExtractPage } from './extract-page.js';
import { makeExtractWithModel } from './extract-with-model.js';
import { makeFetchPage } from './fetch-page.js';
import { makeMapSite } from './map/map-site.js';
import { makeMonitorActivities } from './monitor-run.js';
import { makeRecordEvents } from './record-events.js';

export function createActivities(deps: ActivityDeps) {
  const { crawlPage, crawlPageOfBatch } = makeCrawlPage(deps);
  return {
    recordEvents: makeRecordEvents(deps),
    fetchPage: makeFetchPage(deps),
    cleanContent: makeCleanContent(deps),
    extractWithModel: makeExtractWithModel(deps),
    extractPage: makeExtractPage(deps),
    crawlPage,
    crawlPages: makeCrawlPages(crawlPageOfBatch),
    ...makeCrawlFrontier(deps),
    deliverWebhook: makeDeliverWebhook(deps),
    analyzePage: makeAnalyzePage(deps),
    classifyLinks: makeClassifyLinks(deps),
    suggestAnalysis: makeSuggestAnalysis(deps),
    recordAnalysis: makeRecordAnalysis(deps),
    analyzeJob: makeAnalyzeJob(deps),
    ...makeMonitorActivities(deps),
    mapSite: makeMapSite(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
