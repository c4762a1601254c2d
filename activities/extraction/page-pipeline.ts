// The page pipeline, as plain functions over its ports (extraction-types.ts): fetch (or the page store) →
// document → clean and structured data → learned extractor or model → provenance → the page's result
// event. An extract's page runs it whole here; a crawl's page (crawl/crawl-pipeline.ts) adds robots.txt,
// links and learned extractors around the same steps. The activities adapt it to Temporal.
import type { JobEvent } from '../../shared/events.js';
import { resultFromEvent } from '../../shared/reducers/results.js';
import type { StructuredItem } from '../../shared/structured-data.js';
import { completedEvents, recordStarted } from '../common/job-places.js';
import type { PageSourceInput, SourcedPage } from '../fetching/fetch-page.js';
import type { FetchedDocument } from '../fetching/page-document.js';
import { cleanAndRead, formatOf } from '../reading/clean-content.js';
import { answerPage } from './answer-page.js';
import {
  type AnswerInput,
  type ExtractPageInput,
  type ExtractPageResult,
  type ExtractWithModelResult,
  fetchFacts,
  type PageEvents,
  type PageFetcher,
  type PageJob,
  type PagePlace,
  type PagePorts,
  type PageReader,
  type PageRun,
} from './extraction-types.js';
import { makeRecordPage } from './record-events.js';

/** The one place a page's answer input is made: from its job's spec, its place and how it was fetched. */
export function answerInputOf(
  job: PageJob,
  page: PagePlace,
  fetched: SourcedPage,
  cleanDurationMs: number,
): AnswerInput {
  return {
    jobId: job.jobId,
    tenantId: job.tenantId,
    pageId: page.pageId,
    url: page.url,
    depth: page.depth,
    parentUrl: page.parentUrl,
    schema: job.schema,
    fetch: fetchFacts(fetched),
    cleanDurationMs,
    jobType: page.jobType,
    captureDebug: job.captureDebug,
    llm: job.llm,
    structuredData: job.structuredData,
    contentFormat: formatOf(fetched.doc.contentType, job.cleanerChain),
    ...(page.node === undefined ? {} : { node: page.node }),
    ...(page.revises ? { revises: page.revises } : {}),
    ...(job.budget ? { budget: job.budget } : {}),
  };
}

/** The page from the page store when the job may use it, else from the network. */
export async function obtainPage(fetcher: PageFetcher, input: PageSourceInput): Promise<SourcedPage> {
  return (await fetcher.stored(input)) ?? fetcher.fetch(input);
}

/** The cleaned page, and its structured data unless the job turned it off: one parse, in the reader. */
export async function cleanPage(
  reader: PageReader,
  job: Pick<PageJob, 'cleanerChain' | 'structuredData'>,
  doc: Pick<FetchedDocument, 'body' | 'contentType' | 'url'>,
  signal?: AbortSignal,
): Promise<{ cleaned: string; structured: StructuredItem[] | undefined }> {
  const task = { body: doc.body, contentType: doc.contentType, baseUrl: doc.url, chain: job.cleanerChain };
  return cleanAndRead(reader, task, job.structuredData, signal);
}

type PageCompleted = Extract<JobEvent, { type: 'page.completed' }>;

/** The page's result event an earlier run recorded, if any (a keyed read). */
async function recordedPage(events: PageEvents, input: ExtractPageInput): Promise<PageCompleted | null> {
  const page = await events.get(input.jobId, input.page.seq);
  return page?.type === 'page.completed' ? page : null;
}

/**
 * The result of a page an earlier run recorded: it stands (the model is not asked again), and what that
 * run may not have written is written now (idempotent).
 */
async function recordedResult(
  events: PageEvents,
  input: ExtractPageInput,
  page: PageCompleted,
): Promise<ExtractPageResult> {
  await events.append(completedEvents(input));
  const { usage, ...data } = page.data;
  const result: ExtractWithModelResult = {
    provider: data.provider,
    model: data.model,
    fallbackPosition: data.fallback_position,
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    llmCostUsd: usage.llm_cost_usd,
    costUsd: usage.cost_usd,
    durationMs: data.extract_duration_ms,
  };
  return withAnswer(result, page);
}

/**
 * Beyond this size of JSON the page's result does not travel in the activity's and the workflow's results
 * (each kept in the workflow's history): the API reads it from the results instead.
 */
export const ANSWER_IN_RESULT_MAX_CHARS = 64 * 1024;

/** The result with the page's answer as the API shows it (resultFromEvent), when small enough to carry. */
function withAnswer(result: ExtractWithModelResult, page: JobEvent): ExtractPageResult {
  const answer = resultFromEvent(page);
  if (!answer || JSON.stringify(answer).length > ANSWER_IN_RESULT_MAX_CHARS) return result;
  return { ...result, answer };
}

/**
 * An extract job's page, kept in memory from fetch to result: job.started before the fetch, then the
 * page's result and (a job with nothing left after its page) job.completed in one append.
 */
export async function extractOnePage(
  ports: PagePorts,
  input: ExtractPageInput,
  run: PageRun,
): Promise<ExtractPageResult> {
  // Every run looks for a result an earlier one recorded before the model is asked: a local activity run
  // again after its worker died starts at attempt 1 (workflows/policies.ts). A retry looks before it
  // fetches; a first attempt while it fetches, so the look costs it no time.
  const earlier = recordedPage(ports.events, input);
  earlier.catch(() => undefined); // awaited below; a failure first must not leave it unobserved
  if (run.retry) {
    const page = await earlier;
    if (page) return recordedResult(ports.events, input, page);
  }
  // job.started is written while the page is fetched (projected in the background: the page's result,
  // moments later, projects it at the latest), and the model's chain is read meanwhile.
  const started = recordStarted(ports, input);
  started.catch(() => undefined);
  ports.model.warm(input);
  const prepared = fetchAndClean(ports, input, run.signal);
  prepared.catch(() => undefined);
  const page = await earlier.catch(async (err) => {
    await Promise.allSettled([started, prepared]);
    throw err;
  });
  if (page) {
    // Nothing is left running when the activity ends; the fetch's outcome no longer matters.
    await Promise.allSettled([started, prepared.then((p) => p.fetched.saved)]);
    return recordedResult(ports.events, input, page);
  }
  const { fetched, cleaned, structured, cleanMs } = await prepared.catch(async (err) => {
    await started.catch(() => undefined);
    throw err;
  });
  const place: PagePlace = {
    jobType: 'extract',
    pageId: input.pageId,
    url: input.url,
    depth: 0,
    parentUrl: null,
  };
  const answerInput = answerInputOf(input, place, fetched, cleanMs);
  // The model is asked while the page is being stored; either way the page is kept before the activity
  // ends (a retry after a model failure finds it without a fetch), and job.started is in the log before the
  // page's result. A failure to store either is the activity's failure, as it was before the model was asked.
  const [, , answered] = await settledInOrder([
    started,
    fetched.saved,
    answerPage(ports, answerInput, cleaned, { structured }),
  ]);
  const at = {
    jobId: input.jobId,
    tenantId: input.tenantId,
    eventSeq: input.page.seq,
    eventId: input.page.eventId,
  };
  const recorded = await makeRecordPage(ports)(at, answered.page, 'awaited', completedEvents(input));
  return withAnswer(answered.result, recorded);
}

/** The page fetched (or from the page store) and cleaned, with how long the cleaning took. */
async function fetchAndClean(ports: PagePorts, input: ExtractPageInput, signal?: AbortSignal) {
  const fetched = await obtainPage(ports.fetcher, input);
  const cleanStarted = Date.now();
  const { cleaned, structured } = await cleanPage(ports.reader, input, fetched.doc, signal);
  return { fetched, cleaned, structured, cleanMs: Date.now() - cleanStarted };
}

/**
 * Like Promise.all, but waits for every promise to settle before failing, with the first failure in list
 * order (so nothing is still running when the caller's activity ends, and the error is the step's own).
 */
async function settledInOrder<T extends readonly unknown[]>(
  promises: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const settled = await Promise.allSettled(promises);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
