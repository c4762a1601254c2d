// Asks the chain's models for data matching the schema: validate, retry once with the errors fed back,
// then fall back along the chain. Records the page's result event itself so the data never passes
// through workflow history.
import { Ajv, type ErrorObject } from 'ajv';
import { CategorizedError } from '../shared/errors.js';
import type { PageCompletedData } from '../shared/events.js';
import { priceOf } from '../shared/pricing.js';
import { type NormalizedSchema, toJsonSchema } from '../shared/schema-input.js';
import type { ActivityDeps } from './deps.js';
import { categorized } from './failure.js';
import { operatorChain, type ResolvedEntry, shouldFallBack } from './llm/chain.js';
import { parseAnswer, SYSTEM_PROMPT, userPrompt } from './llm/prompt.js';
import { callModel } from './llm/providers.js';

export interface ExtractWithModelInput {
  jobId: string;
  tenantId: string;
  pageId: string;
  contentId: string;
  url: string;
  depth: number;
  parentUrl: string | null;
  schema: NormalizedSchema;
  fetch: { finalUrl: string; fetchMode: string; fetchedAt: string; durationMs: number };
  cleanDurationMs: number;
  /** Sequence number of the page.completed event, made by the workflow. */
  eventSeq: number;
  eventId: string;
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

interface Attempt {
  data: unknown;
  inputTokens: number;
  outputTokens: number;
}

const ajv = new Ajv({ allErrors: true, strict: false });

export function makeExtractWithModel(deps: ActivityDeps) {
  const { config } = deps;

  async function tryEntry(
    entry: ResolvedEntry,
    input: ExtractWithModelInput,
    content: string,
  ): Promise<Attempt> {
    const jsonSchema = toJsonSchema(input.schema);
    const validate = ajv.compile(jsonSchema);
    let tokensIn = 0;
    let tokensOut = 0;
    let feedback: string | undefined;
    for (let round = 0; round < 2; round++) {
      const answer = await callModel(entry, {
        system: SYSTEM_PROMPT,
        user: userPrompt({ url: input.url, schema: input.schema, jsonSchema, content, feedback }),
        jsonSchema,
        schemaName: safeName(input.schema.name),
        timeoutMs: config.LLM_TIMEOUT_MS,
      });
      tokensIn += answer.inputTokens;
      tokensOut += answer.outputTokens;
      if (answer.truncated)
        throw new CategorizedError('llm_truncation', 'the model ran out of output tokens', true);
      let data: unknown;
      try {
        data = parseAnswer(answer.text);
      } catch {
        feedback = 'it was not parseable JSON';
        if (round === 1)
          throw new CategorizedError('parse_error', 'the model did not answer with JSON', true);
        continue;
      }
      if (validate(data)) return { data, inputTokens: tokensIn, outputTokens: tokensOut };
      feedback = describe(validate.errors ?? []);
      if (round === 1)
        throw new CategorizedError(
          'schema_mismatch',
          `the answer did not match the schema: ${feedback}`,
          true,
        );
    }
    throw new CategorizedError('unknown', 'unreachable');
  }

  return async function extractWithModel(input: ExtractWithModelInput): Promise<ExtractWithModelResult> {
    return categorized(async () => {
      const started = Date.now();
      const source = await deps.contents.get(input.contentId);
      const content = source.body.slice(0, config.LLM_MAX_CONTENT_CHARS);
      const chain = operatorChain(config);
      if (chain.length === 0) throw new CategorizedError('no_models', 'no model is configured');
      let lastError: CategorizedError | undefined;
      for (const entry of chain) {
        try {
          const attempt = await tryEntry(entry, input, content);
          return await recordSuccess(input, entry, attempt, Date.now() - started);
        } catch (err) {
          if (!(err instanceof CategorizedError) || !shouldFallBack(err.category)) throw err;
          lastError = err;
        }
      }
      throw lastError ?? new CategorizedError('no_models', 'no model answered');
    });
  };

  async function recordSuccess(
    input: ExtractWithModelInput,
    entry: ResolvedEntry,
    attempt: Attempt,
    durationMs: number,
  ): Promise<ExtractWithModelResult> {
    const price = priceOf(entry.model, attempt.inputTokens, attempt.outputTokens);
    const costUsd = entry.isByok ? 0 : Math.round(price.llm_cost_usd * (1 + config.PRICE_MARKUP) * 1e9) / 1e9;
    const data: PageCompletedData = {
      page_id: input.pageId,
      url: input.url,
      final_url: input.fetch.finalUrl,
      depth: input.depth,
      parent_url: input.parentUrl,
      data: attempt.data,
      input_format: input.schema.input_format,
      fetch_mode: input.fetch.fetchMode,
      fetched_at: input.fetch.fetchedAt,
      fetch_duration_ms: input.fetch.durationMs,
      clean_duration_ms: input.cleanDurationMs,
      extract_duration_ms: durationMs,
      provider: entry.provider,
      model: entry.model,
      fallback_position: entry.position,
      usage: {
        input_tokens: attempt.inputTokens,
        output_tokens: attempt.outputTokens,
        llm_cost_usd: price.llm_cost_usd,
        cost_usd: costUsd,
        is_byok: entry.isByok,
      },
      price_known: price.price_known,
    };
    await deps.events.append([
      {
        type: 'page.completed',
        data,
        job_id: input.jobId,
        tenant_id: input.tenantId,
        seq: input.eventSeq,
        event_id: input.eventId,
        at: new Date().toISOString(),
      },
    ]);
    return {
      provider: entry.provider,
      model: entry.model,
      fallbackPosition: entry.position,
      inputTokens: attempt.inputTokens,
      outputTokens: attempt.outputTokens,
      llmCostUsd: price.llm_cost_usd,
      costUsd,
      durationMs,
    };
  }
}

const safeName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'extraction';

function describe(errors: ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}
