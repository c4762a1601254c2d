// The types of a page's way to its data, below every file that takes part in it (page-pipeline.ts,
// answer-page.ts, extract-with-model.ts and what they call: page-result.ts, debug-capture.ts,
// record-events.ts, llm/dialogue.ts), so none imports upward; with them the pipeline's ports: where pages
// come from, what reads them, the model and the job's events.

import type { JobBudget } from '../../shared/budget.js';
import type { ContentFormat } from '../../shared/cleaners.js';
import type { Config } from '../../shared/config.js';
import type { PageCompletedData } from '../../shared/events.js';
import type { ResultView } from '../../shared/reducers/results.js';
import type { NormalizedSchema } from '../../shared/schema-input.js';
import type { ActionOutcome } from '../../shared/schemas/actions.js';
import type { ExtractWorkflowInput, JobLlmConfig } from '../../shared/schemas/job-spec.js';
import type { EventStore } from '../../shared/store/event-store.js';
import type { NewPage } from '../../shared/store/pages.js';
import type { FieldProvenance } from '../../shared/structured-data.js';
import { currentActivity } from '../common/activity-context.js';
import type { JobPlaces } from '../common/job-places.js';
import type { PageSourceInput, SourcedPage } from '../fetching/fetch-page.js';
import type { HtmlPool } from '../reading/html-pool/pool.js';

export interface ExtractWithModelInput {
  jobId: string;
  tenantId: string;
  pageId: string;
  contentId: string;
  url: string;
  depth: number;
  parentUrl: string | null;
  schema: NormalizedSchema;
  /** fromCache: the page came from the page store (max_age, re-extract), fetched at fetchedAt. */
  fetch: {
    finalUrl: string;
    fetchMode: string;
    fetchedAt: string;
    durationMs: number;
    fromCache?: boolean;
    /** What was read: text/html, application/pdf, an Office type… */
    contentType?: string;
    /** Page actions run before the page was read (dynamic mode): each step's outcome. */
    actions?: ActionOutcome[];
  };
  cleanDurationMs: number;
  /** Sequence number of the page.completed event, made by the workflow. */
  eventSeq: number;
  eventId: string;
  jobType?: string;
  captureDebug?: boolean;
  /** The request's llm_config, without its key (the key is stored with the job). */
  llm?: JobLlmConfig;
  /** Crawl-map node of the page (crawls). */
  node?: number;
  /** The job's structured_data switch: answer from the page's structured data first (absent: on). */
  structuredData?: boolean;
  /** A re-done page (crawls): the result it replaces. */
  revises?: PageCompletedData['revises'];
  /** The format the cleaner chain produced, named in the prompt (absent: markdown). */
  contentFormat?: ContentFormat;
  /** The job's max_cost_usd / max_tokens: every model call is reserved against them first. */
  budget?: JobBudget;
}

/** A page answered by a learned extractor (crawls): its values and the selector each was read with. */
export interface LearnedAnswer {
  data: Record<string, unknown>;
  selectors: Record<string, string>;
}

/** What a model answer for a page needs: the extraction input without where its result is recorded. */
export type AnswerInput = Omit<ExtractWithModelInput, 'contentId' | 'eventSeq' | 'eventId'>;

/** What the model path records of how a page was obtained (an extract's page and a crawl's alike). */
export function fetchFacts(fetched: SourcedPage): ExtractWithModelInput['fetch'] {
  const { doc } = fetched;
  return {
    finalUrl: doc.url,
    fetchMode: fetched.mode,
    fetchedAt: fetched.fetchedAt,
    durationMs: fetched.durationMs,
    ...(fetched.fromCache ? { fromCache: true } : {}),
    contentType: doc.contentType,
    ...(doc.actions ? { actions: doc.actions } : {}),
  };
}

export interface ExtractWithModelResult {
  provider: string;
  model: string;
  fallbackPosition: number;
  inputTokens: number;
  outputTokens: number;
  llmCostUsd: number;
  costUsd: number;
  durationMs: number;
}

/**
 * An extract's page as its activity returns it: with the page's result as the API answers it (its read model's
 * row, resultFromEvent) when that is small enough to travel through Temporal, so a waited extract is answered
 * without reading it back; a larger one is read from the results, as any job's.
 */
export interface ExtractPageResult extends ExtractWithModelResult {
  answer?: ResultView;
}

/** A page as its job places it: an extract's one page (depth 0), or a crawl's, with its map node. */
export type PagePlace = Pick<AnswerInput, 'pageId' | 'url' | 'depth' | 'parentUrl' | 'node' | 'revises'> & {
  jobType: 'extract' | 'crawl';
};

/** The extract job's spec with its ids, as the workflow has it, and where the activity records its events. */
export type ExtractPageInput = ExtractWorkflowInput & JobPlaces & { pageId: string };

/**
 * What a job says of how its pages are read and answered: the fields extract and crawl specs share
 * (shared/schemas/job-spec.ts), with the job's ids.
 */
export type PageJob = Pick<
  ExtractWorkflowInput,
  'jobId' | 'tenantId' | 'schema' | 'cleanerChain' | 'captureDebug' | 'llm' | 'structuredData' | 'budget'
>;

/** Where pages come from: the page store (cache, re-extract, retry) or the network (fetching/fetch-page.ts). */
export interface PageFetcher {
  /** The stored page the input may use, or null when it must be fetched. */
  stored(input: PageSourceInput): Promise<SourcedPage | null>;
  /** `hold`: where the page to store goes instead of the store (a crawl batch writes its pages together). */
  fetch(input: PageSourceInput, hold?: (page: NewPage) => boolean): Promise<SourcedPage>;
}

/** What reads a page's HTML: cleaning, structured data, links, templates (the worker's HTML pool). */
export type PageReader = Pick<HtmlPool, 'run'>;

/** The model's answer on a page, as its result event holds it; captureId: its debug capture, if any. */
export interface ModelAnswer {
  page: PageCompletedData;
  result: ExtractWithModelResult;
  captureId?: string;
}

/** The job's chain of models (extract-with-model.ts makeExtractor builds the worker's). */
export interface PageModel {
  /** Asks for the schema's fields from the page's content, falling back along the chain. */
  ask(input: AnswerInput, body: string, started: number): Promise<ModelAnswer>;
  /** Adds where each value came from to the answer's debug capture. */
  noteProvenance(captureId: string, provenance: Record<string, FieldProvenance>): Promise<void>;
  /** Starts reading what the job's first call needs (chain, keys, budget) while the page is fetched. */
  warm(input: Pick<AnswerInput, 'jobId' | 'tenantId' | 'llm' | 'budget'>): void;
}

/** The job's events: a page's result appended, and read back by a retried attempt. */
export type PageEvents = Pick<EventStore, 'append' | 'appendDeferred' | 'get'>;

/** What answering a page needs: the model, and the limits of what it is shown and charged. */
export interface AnswerPorts {
  model: PageModel;
  config: Pick<Config, 'PRICE_MARKUP' | 'LLM_MAX_CONTENT_CHARS'>;
}

/** The page pipeline's ports (an extract's page; a crawl's adds its own: crawl/crawl-types.ts). */
export interface PagePorts extends AnswerPorts {
  fetcher: PageFetcher;
  reader: PageReader;
  events: PageEvents;
}

/** What an activity hands the pipeline of its run: its cancellation, and whether it is a retry. */
export interface PageRun {
  signal?: AbortSignal;
  /** A later attempt (or a rerun): an earlier one may have written part of the page's work. */
  retry: boolean;
}

/** The page run of the activity running now: its cancellation, and whether it is a later attempt. */
export function currentPageRun(): PageRun {
  const activity = currentActivity();
  return { signal: activity?.cancellationSignal, retry: (activity?.info.attempt ?? 1) > 1 };
}
