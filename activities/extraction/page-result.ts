// A page's result as its page.completed event holds it: data, where it came from, fetch and timing, and
// what the model calls cost (the service fee on the operator's keys only).

import type { Config } from '../../shared/config.js';
import type { PageCompletedData } from '../../shared/events.js';
import { mergeAnswer, type StructuredPlan, sourceOf } from '../reading/structured-data/answer.js';
import type { AnswerInput, ExtractWithModelResult, LearnedAnswer } from './extraction-types.js';
import type { ResolvedEntry } from './llm/chain.js';
import { noSpend, round9, type Spend } from './llm/dialogue.js';
import { provenanceOf } from './provenance.js';

type Answered = { page: PageCompletedData; result: ExtractWithModelResult };

/**
 * A page answered without the model, from its structured data and (crawls) its template's learned
 * extractor for the rest: no model call, 0 tokens, no cost.
 */
export function noModel(
  config: Pick<Config, 'PRICE_MARKUP'>,
  input: AnswerInput,
  plan: StructuredPlan | null,
  learned: LearnedAnswer | undefined,
  durationMs: number,
): Answered {
  const none = { provider: '', model: '', position: 0, isByok: false };
  const spend = noSpend();
  const mapping = plan?.mapping ?? { data: {}, answered: [], missing: [], paths: {} };
  const data = mergeAnswer(input.schema, mapping, learned?.data ?? {});
  const { page, result } = pageResult(config, input, none, { data }, spend, durationMs);
  const selectors = Object.fromEntries(
    Object.entries(learned?.selectors ?? {}).filter(([name]) => !(name in mapping.data)),
  );
  const provenance = provenanceOf(input.schema, data, { structured: mapping.paths, learned: selectors }, '');
  const source = sourceOf(plan);
  // With a learned extractor's values: its alone, or mixed with structured data's.
  if (learned) source.data_source = plan ? 'mixed' : 'learned_extractor';
  return { page: { ...page, ...source, provenance }, result };
}

export function pageResult(
  config: Pick<Config, 'PRICE_MARKUP'>,
  input: AnswerInput,
  entry: Pick<ResolvedEntry, 'provider' | 'model' | 'position' | 'isByok'>,
  attempt: { data: unknown },
  spend: Spend,
  durationMs: number,
): Answered {
  // BYOK runs pay the provider themselves: the service fee (PRICE_MARKUP applies to our keys only) is 0.
  const costUsd = entry.isByok ? 0 : round9(spend.llmCostUsd * (1 + config.PRICE_MARKUP));
  const data: PageCompletedData = {
    ...(input.node === undefined ? {} : { node: input.node }),
    page_id: input.pageId,
    url: input.url,
    final_url: input.fetch.finalUrl,
    depth: input.depth,
    parent_url: input.parentUrl,
    data: attempt.data,
    input_format: input.schema.input_format,
    fetch_mode: input.fetch.fetchMode,
    fetched_at: input.fetch.fetchedAt,
    ...(input.fetch.fromCache ? { from_cache: true as const } : {}),
    ...(input.fetch.contentType ? { content_type: input.fetch.contentType } : {}),
    fetch_duration_ms: input.fetch.durationMs,
    ...(input.fetch.actions ? { actions: input.fetch.actions } : {}),
    clean_duration_ms: input.cleanDurationMs,
    extract_duration_ms: durationMs,
    provider: entry.provider,
    model: entry.model,
    fallback_position: entry.position,
    usage: {
      input_tokens: spend.inputTokens,
      output_tokens: spend.outputTokens,
      llm_cost_usd: spend.llmCostUsd,
      cost_usd: costUsd,
      is_byok: entry.isByok,
    },
    price_known: spend.priceKnown,
  };
  const result = {
    provider: entry.provider,
    model: entry.model,
    fallbackPosition: entry.position,
    inputTokens: spend.inputTokens,
    outputTokens: spend.outputTokens,
    llmCostUsd: spend.llmCostUsd,
    costUsd,
    durationMs,
  };
  return { page: data, result };
}
