// The types of a page's way to its data, below every file that takes part in it (extract-with-model.ts and
// what it calls: page-result.ts, debug-capture.ts, record-events.ts, llm/dialogue.ts), so none imports upward.

import type { JobBudget } from '../../shared/budget.js';
import type { ContentFormat } from '../../shared/cleaners.js';
import type { PageCompletedData } from '../../shared/events.js';
import type { NormalizedSchema } from '../../shared/schema-input.js';
import type { ActionOutcome } from '../../shared/schemas/actions.js';
import type { JobLlmConfig } from '../../shared/schemas/job-spec.js';
import type { SourcedPage } from '../fetching/fetch-page.js';

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
