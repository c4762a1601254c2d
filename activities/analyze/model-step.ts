// One model call of an analysis through the extraction path (chain, fallback, validation with one retry,
// debug capture, usage and cost). An analysis records one result for all its model calls, so the page result
// each call would write is collected here instead, and the analysis records the sum.
import type { PageCompletedData, Usage } from '../../shared/events.js';
import type { NormalizedSchema } from '../../shared/schema-input.js';
import type { EventStore } from '../../shared/store/event-store.js';
import type { ActivityDeps } from '../deps.js';
import { makeExtractWithModel } from '../extract-with-model.js';
import type { JobLlmConfig } from '../llm/chain.js';

/** What every model step of one analysis shares. */
export interface AnalysisJob {
  jobId: string;
  tenantId: string;
  pageId: string;
  url: string;
  fetch: { finalUrl: string; fetchMode: string; fetchedAt: string; durationMs: number };
  captureDebug: boolean;
  llm?: JobLlmConfig;
}

export interface StepRequest {
  /** Names the step in its debug captures, which are keyed by page id. */
  step: 'analysis' | 'sample';
  contentId: string;
  schema: NormalizedSchema;
  cleanDurationMs: number;
}

/** A model step's cost and who answered: what an analysis reports beside its data. */
export interface StepSpend {
  usage: Usage;
  priceKnown: boolean;
  provider: string;
  model: string;
  fallbackPosition: number;
  durationMs: number;
}

const round9 = (n: number) => Math.round(n * 1e9) / 1e9;

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    llm_cost_usd: round9(a.llm_cost_usd + b.llm_cost_usd),
    cost_usd: round9(a.cost_usd + b.cost_usd),
    is_byok: a.is_byok || b.is_byok,
  };
}

export async function runModelStep(
  deps: ActivityDeps,
  job: AnalysisJob,
  request: StepRequest,
): Promise<StepSpend & { data: unknown }> {
  let result: PageCompletedData | undefined;
  // Only append is used by the extraction path; it receives the page result this call would have recorded.
  const collect = {
    append: async (events: readonly { type: string; data: unknown }[]) => {
      for (const e of events) if (e.type === 'page.completed') result = e.data as PageCompletedData;
    },
  } as unknown as EventStore;
  const extract = makeExtractWithModel({ ...deps, events: collect });
  const { jobId, tenantId, url, fetch, captureDebug, llm } = job;
  const answer = await extract({
    jobId,
    tenantId,
    url,
    fetch,
    captureDebug,
    llm,
    pageId: `${job.pageId}-${request.step}`,
    contentId: request.contentId,
    schema: request.schema,
    cleanDurationMs: request.cleanDurationMs,
    depth: 0,
    parentUrl: null,
    jobType: 'analyze',
    eventSeq: -1,
    eventId: '',
  });
  if (!result) throw new Error('the model step produced no result');
  return {
    data: result.data,
    usage: result.usage,
    priceKnown: result.price_known,
    provider: answer.provider,
    model: answer.model,
    fallbackPosition: answer.fallbackPosition,
    durationMs: answer.durationMs,
  };
}
