// The real workflows' activities for API tests that start jobs, without the network, the browser, the HTML
// threads or a model provider: each page runs the real page pipeline (extractOnePage, crawlOnePage) over a
// page table served through the real fetch checks, the HTML tasks in this thread, and a model that reads its
// answer from the content it is sent as the fake model server does (or answers from a table). Events, job
// projections, the crawl's seen URLs and frontier go to the service's own stores, so the API reads what a
// worker would have written; webhooks are delivered by the real activity. With `analyze`, the real analyzeJob
// runs on engines in this thread (a test of the analyze workflow's shape); maps and monitors are not faked: a
// test of those runs the whole stack (test/integration/).
import type { StoreDeps } from '../../activities/common/deps.js';
import { categorized } from '../../activities/common/failure.js';
import { makeCrawlFrontier } from '../../activities/crawl/crawl-frontier.js';
import { makeCrawlPages } from '../../activities/crawl/crawl-pages.js';
import { crawlOnePage } from '../../activities/crawl/crawl-pipeline.js';
import type { CrawlPipelineResult, CrawlPorts } from '../../activities/crawl/crawl-types.js';
import { makeDeliverWebhook } from '../../activities/delivery/deliver-webhook.js';
import {
  type AnswerInput,
  currentPageRun,
  type ModelAnswer,
  type PageModel,
  type PagePorts,
} from '../../activities/extraction/extraction-types.js';
import { extractOnePage } from '../../activities/extraction/page-pipeline.js';
import { pageResult } from '../../activities/extraction/page-result.js';
import { makeRecordEvents } from '../../activities/extraction/record-events.js';
import type { ActivityDeps, Engines } from '../../activities/fetching/deps.js';
import type { Activities } from '../../activities/index.js';
import { runTask } from '../../activities/reading/html-pool/tasks.js';
import { type Config, parseChain } from '../../shared/config.js';
import type { CategorizedError } from '../../shared/errors.js';
import { priceOf } from '../../shared/pricing.js';
import { toJsonSchema } from '../../shared/schema-input.js';
import { CrawlUrlStore } from '../../shared/store/crawl-urls.js';
import {
  inProcessReader,
  memoryFetcher,
  memoryModel,
  memorySite,
  type SitePage,
} from '../pipeline/memory-ports.js';
import { answerFromPage } from './fake-llm-server.js';

export interface FakeTables {
  /** The site: page URL → its HTML (or status, content type and body); any other URL answers 404. */
  pages: Record<string, SitePage>;
  /** The model's answers by field (or by the asking page); default: read from the content sent, as the fake model server does. */
  answers?: Record<string, unknown> | ((input: AnswerInput) => Record<string, unknown>);
  /**
   * Register the real analyzeJob with the engines in this thread (HTML tasks here, no browser, no document
   * readers): it fetches for real (static mode only) and asks the operator's model chain (the fake model
   * server). For tests of the analyze workflow's shape; the page table is not used.
   */
  analyze?: boolean;
}

/**
 * What the model was asked: the fields, the JSON schema its answer must follow, the content sent, and the
 * format the cleaner chain produced it in (the prompt names it: activities/extraction/llm/prompt.ts).
 */
export interface FakeAsked {
  fields: string[];
  schema: Record<string, unknown>;
  body: string;
  format: AnswerInput['contentFormat'];
}

/** The activities a fake worker registers, built from the service's stores (`build`), and what they saw. */
export interface FakeActivities {
  /** The URLs fetched from the page table, in order. */
  requests: string[];
  asked: FakeAsked[];
  /** The model's next ask for a page of `url` fails with this error (as the model chain raises a provider's refusal), once. */
  failNext(url: string, error: CategorizedError): void;
  build(deps: StoreDeps): Partial<Activities>;
}

export function fakeActivities(tables: FakeTables): FakeActivities {
  const site = memorySite(tables.pages);
  const asked: FakeAsked[] = [];
  const failures = new Map<string, CategorizedError>();
  return {
    requests: site.requests,
    asked,
    failNext: (url, error) => void failures.set(url, error),
    build(deps) {
      const { answers } = tables;
      const answering = answers ? memoryModel(answers).model : readingModel(deps.config);
      const model: PageModel = {
        ...answering,
        ask(input, body, started) {
          asked.push({
            fields: input.schema.fields.map((f) => f.name),
            schema: toJsonSchema(input.schema),
            body,
            format: input.contentFormat,
          });
          const failure = failures.get(input.url);
          failures.delete(input.url);
          return failure ? Promise.reject(failure) : answering.ask(input, body, started);
        },
      };
      const ports: PagePorts = {
        config: deps.config,
        events: deps.events,
        fetcher: memoryFetcher(site),
        reader: inProcessReader,
        model,
      };
      const crawlPorts: CrawlPorts = {
        ...ports,
        robotsAllow: async () => true,
        seen: new CrawlUrlStore(deps.events.database()),
        learner: null,
      };
      const crawlPage = (input: Parameters<Activities['crawlPage']>[0]) =>
        categorized(async () => noLearning(await crawlOnePage(crawlPorts, input, currentPageRun())));
      return {
        recordEvents: makeRecordEvents(deps),
        extractPage: (input) => categorized(() => extractOnePage(ports, input, currentPageRun())),
        crawlPage: (input) =>
          crawlPage({ ...input, batchLinkChars: undefined }) as ReturnType<Activities['crawlPage']>,
        crawlPages: makeCrawlPages(crawlPage),
        ...makeCrawlFrontier(deps),
        deliverWebhook: makeDeliverWebhook(deps),
        ...(tables.analyze ? { analyzeJob: lazyAnalyzeJob({ ...deps, ...inThreadEngines }) } : {}),
      };
    },
  };
}

/** The engines of a worker in the test's own thread: the HTML tasks run here; no browser, no document readers. */
const inThreadEngines: Engines = {
  html: { run: async (task) => runTask(task) as never, close: async () => undefined },
  browser: undefined,
  documents: undefined,
};

/** The real analyzeJob, its modules (and the model SDKs) loaded when first run: the other files load none. */
function lazyAnalyzeJob(deps: ActivityDeps): Activities['analyzeJob'] {
  let made: Promise<Activities['analyzeJob']> | undefined;
  return async (input) => {
    made ??= import('../../activities/analyze/analyze-job.js').then((m) => m.makeAnalyzeJob(deps));
    return (await made)(input);
  };
}

/** Without a learner no page waits for its template's extractor; a 'learning' outcome would be a bug here. */
function noLearning(result: CrawlPipelineResult): Exclude<CrawlPipelineResult, { outcome: 'learning' }> {
  if (result.outcome === 'learning')
    throw new Error('a fake worker has no learner: no page can wait for one');
  return result;
}

/**
 * A model that answers the schema's fields from the content it is sent, as the fake model server does, as the
 * operator's first model (DEFAULT_LLM_CHAIN) at its list price, with the fake server's token counts (a
 * quarter of the characters sent and answered). A tenant's own chain and keys are not read.
 */
function readingModel(config: Pick<Config, 'PRICE_MARKUP' | 'DEFAULT_LLM_CHAIN'>): PageModel {
  const [first] = parseChain(config.DEFAULT_LLM_CHAIN);
  const entry = {
    provider: first?.provider ?? 'openai',
    model: first?.model ?? 'fake-model',
    position: 0,
    isByok: false,
  };
  return {
    async ask(input: AnswerInput, body: string, started: number): Promise<ModelAnswer> {
      const data = answerFromPage(toJsonSchema(input.schema), body);
      const inputTokens = Math.ceil(body.length / 4);
      const outputTokens = Math.ceil(JSON.stringify(data).length / 4);
      const price = priceOf(entry.model, inputTokens, outputTokens, entry.provider);
      const spend = {
        inputTokens,
        outputTokens,
        llmCostUsd: price.llm_cost_usd,
        priceKnown: price.price_known,
      };
      return pageResult(config, input, entry, { data }, spend, Date.now() - started);
    },
    noteProvenance: async () => undefined,
    warm: () => undefined,
  };
}

/** A page table with a fixture site's face (`url`, `route`), for the fake activities' `pages`. */
export interface PageTable {
  url: string;
  pages: Record<string, SitePage>;
  route(path: string, page: SitePage): void;
}

export function pageTable(url = 'https://site.test'): PageTable {
  const pages: Record<string, SitePage> = {};
  return {
    url,
    pages,
    route: (path, page) => {
      pages[`${url}${path}`] = page;
    },
  };
}
