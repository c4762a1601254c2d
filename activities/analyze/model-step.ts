// One model call of an analysis through the extraction path (chain, fallback, validation with one retry,
// debug capture, usage and cost). An analysis records one result for all its model calls, so the page result
// each call would write is collected here instead, and the analysis records the sum.
import type { PageCompletedData, Usage } from '../../shared/events.js';
import type { EventStore } from '../../shared/store/event-store.js';
import type { ActivityDeps } from '../deps.js';
import { type ExtractWithModelInput, makeExtractWithModel } from '../extract-with-model.js';

export type ModelStepInput = Omit<ExtractWithModelInput, 'eventSeq' | 'eventId' | 'node'>;

export interface ModelStep {
  data: unknown;
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

export async function runModelStep(deps: ActivityDeps, input: ModelStepInput): Promise<ModelStep> {
  let result: PageCompletedData | undefined;
  // Only append is used by the extraction path; it receives the page result this call would have recorded.
  const collect = {
    append: async (events: readonly { type: string; data: unknown }[]) => {
      for (const e of events) if (e.type === 'page.completed') result = e.data as PageCompletedData;
    },
  } as unknown as EventStore;
  const extract = makeExtractWithModel({ ...deps, events: collect });
  const answer = await extract({ ...input, eventSeq: -1, eventId: '' });
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
