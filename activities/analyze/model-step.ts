// One model call of an analysis through the extraction path (chain, fallback, validation with one retry,
// debug capture, usage and cost). An analysis records one result for all its model calls, so each call's
// page result is returned unrecorded, and the analysis records the sum.
import type { Usage } from '../../shared/events.js';
import type { NormalizedSchema } from '../../shared/schema-input.js';
import type { JobLlmConfig } from '../../shared/schemas/job-spec.js';
import type { StoreDeps } from '../common/deps.js';
import { makeExtractor } from '../extraction/extract-with-model.js';

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
  step: 'analysis' | 'sample' | 'analysis_retry' | 'sample_retry';
  contentId: string;
  /** Put before the stored content: what went wrong with an earlier answer. */
  preface?: string;
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
  deps: StoreDeps,
  job: AnalysisJob,
  request: StepRequest,
): Promise<StepSpend & { data: unknown }> {
  const { answerFromContent } = makeExtractor(deps);
  const { jobId, tenantId, url, fetch, captureDebug, llm } = job;
  const content = await deps.contents.get(request.contentId);
  const { page: result, result: answer } = await answerFromContent(
    {
      jobId,
      tenantId,
      url,
      fetch,
      captureDebug,
      llm,
      pageId: `${job.pageId}-${request.step}`,
      schema: request.schema,
      cleanDurationMs: request.cleanDurationMs,
      depth: 0,
      parentUrl: null,
      jobType: 'analyze',
    },
    request.preface ? `${request.preface}\n${content.body}` : content.body,
  );
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
