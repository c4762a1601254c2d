// Asks the chain's models for data matching the schema: validate, retry once with the errors fed back,
// then fall back along the chain. Records the page's result event itself so the data never passes
// through workflow history.

import type { ErrorObject } from 'ajv';
import type { JobBudget } from '../shared/budget.js';
import type { ContentFormat } from '../shared/cleaners.js';
import { CategorizedError } from '../shared/errors.js';
import type { JobEvent, PageCompletedData } from '../shared/events.js';
import { priceOf } from '../shared/pricing.js';
import { type NormalizedSchema, toJsonSchema } from '../shared/schema-input.js';
import type { ActionOutcome } from '../shared/schemas/actions.js';
import { redactSecrets } from '../shared/secrets.js';
import type { DebugCapture } from '../shared/store/debug-captures.js';
import type { StructuredItem } from '../shared/structured-data.js';
import { currentActivity } from './activity-context.js';
import { makeBudgetGuard } from './budget-guard.js';
import type { ActivityDeps } from './deps.js';
import { cancellationOf, categorized } from './failure.js';
import { type JobLlmConfig, type ResolvedEntry, resolveChain, shouldFallBack } from './llm/chain.js';
import { parseAnswer, SYSTEM_PROMPT, userPrompt } from './llm/prompt.js';
import { callModel, type ModelAnswer } from './llm/providers.js';
import { provenanceOf } from './provenance.js';
import { validatorFor } from './schema-validators.js';
import {
  mergeAnswer,
  planFromStructuredData,
  type StructuredPlan,
  sourceOf,
} from './structured-data/answer.js';

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

/** Tokens and cost spent on one page, over every model call (failed ones cost money too). */
interface Spend {
  inputTokens: number;
  outputTokens: number;
  llmCostUsd: number;
  priceKnown: boolean;
}

interface Attempt {
  data: unknown;
}

const API_VERSION = 'v1';
const CHAIN_CACHE_MS = 30_000;
const round9 = (n: number) => Math.round(n * 1e9) / 1e9;

/** The extractWithModel activity (content by id). */
export const makeExtractWithModel = (deps: ActivityDeps) => makeExtractor(deps).extractWithModel;

export function makeExtractor(deps: ActivityDeps) {
  const { config } = deps;
  const chains = new Map<string, { chain: Promise<ResolvedEntry[]>; at: number }>();
  const budget = makeBudgetGuard(deps);

  /**
   * The job's model chain, resolved once per job and worker for CHAIN_CACHE_MS: a crawl's pages would
   * otherwise read the same chain and keys for every page. A failed resolution is not kept.
   */
  function chainOf(input: { tenantId: string; jobId: string; llm?: JobLlmConfig }) {
    const now = Date.now();
    const cached = chains.get(input.jobId);
    if (cached && now - cached.at < CHAIN_CACHE_MS) return cached.chain;
    for (const [jobId, entry] of chains) if (now - entry.at >= CHAIN_CACHE_MS) chains.delete(jobId);
    const chain = resolveChain({
      config,
      llm: deps.llm,
      tenantId: input.tenantId,
      jobId: input.jobId,
      request: input.llm,
    });
    chains.set(input.jobId, { chain, at: now });
    chain.catch(() => chains.delete(input.jobId));
    return chain;
  }

  async function tryEntry(
    entry: ResolvedEntry,
    input: AnswerInput,
    content: string,
    spend: Spend,
    capture: (c: CaptureInput) => Promise<void>,
  ): Promise<Attempt> {
    const jsonSchema = toJsonSchema(input.schema);
    const validate = validatorFor(jsonSchema);
    const schemaChars = JSON.stringify(jsonSchema).length;
    let feedback: string | undefined;
    for (let round = 0; round < 2; round++) {
      const user = userPrompt({
        url: input.url,
        schema: input.schema,
        jsonSchema,
        content,
        feedback,
        ...(input.contentFormat ? { format: input.contentFormat } : {}),
      });
      const started = Date.now();
      const record = { entry, user, content, jsonSchema, isRetry: round > 0, started };
      // Refused (quota_exceeded naming the budget) before the call when its worst case could pass a budget.
      const hold = await budget.reserve(input, entry, SYSTEM_PROMPT.length + user.length + schemaChars);
      let answer: ModelAnswer;
      try {
        answer = await callModel(entry, {
          system: SYSTEM_PROMPT,
          user,
          jsonSchema,
          schemaName: safeName(input.schema.name),
          timeoutMs: config.LLM_TIMEOUT_MS,
          allowPrivate: config.ALLOW_PRIVATE_ADDRESSES,
        });
      } catch (err) {
        await hold.release();
        const failure =
          err instanceof CategorizedError ? err : new CategorizedError('provider_error', String(err));
        await capture({ ...record, error: failure });
        throw redacted(failure, entry);
      }
      await hold.settle(answer.inputTokens, answer.outputTokens);
      const cost = priceOf(entry.model, answer.inputTokens, answer.outputTokens, entry.provider);
      spend.inputTokens += answer.inputTokens;
      spend.outputTokens += answer.outputTokens;
      spend.llmCostUsd = round9(spend.llmCostUsd + cost.llm_cost_usd);
      spend.priceKnown &&= cost.price_known;
      const done = (result: { data?: unknown; error?: CategorizedError; parseError?: string }) =>
        capture({ ...record, answer, cost: cost.llm_cost_usd, ...result });
      if (answer.truncated) {
        const error = new CategorizedError('llm_truncation', 'the model ran out of output tokens', true);
        await done({ error });
        throw error;
      }
      let data: unknown;
      try {
        data = parseAnswer(answer.text);
      } catch (err) {
        feedback = 'it was not parseable JSON';
        const error = new CategorizedError('parse_error', 'the model did not answer with JSON', true);
        await done({ error: round === 1 ? error : undefined, parseError: (err as Error).message });
        if (round === 1) throw error;
        continue;
      }
      if (validate(data)) {
        await done({ data });
        return { data };
      }
      feedback = describe(validate.errors ?? []);
      const error = new CategorizedError(
        'schema_mismatch',
        `the answer did not match the schema: ${feedback}`,
        true,
      );
      await done({ data, error });
      if (round === 1) throw error;
    }
    throw new CategorizedError('unknown', 'unreachable');
  }

  /**
   * Asks the chain for data from content in hand and returns the page's result without recording it
   * (an analysis sums several such answers into one result). `from` gives the page's structured data, or
   * the plan already made of it (planOf), and a learned extractor's answer (crawls).
   */
  async function answerFromContent(
    input: AnswerInput,
    body: string,
    from: {
      structured?: StructuredItem[] | null;
      plan?: StructuredPlan | null;
      learned?: LearnedAnswer;
    } = {},
  ): Promise<{ page: PageCompletedData; result: ExtractWithModelResult }> {
    return categorized(async () => {
      const started = Date.now();
      const { learned } = from;
      const plan = from.plan !== undefined ? from.plan : planOf(input, body, from.structured);
      if (plan && !plan.rest) return noModel(input, plan, undefined, Date.now() - started);
      if (learned) return noModel(input, plan, learned, Date.now() - started);
      const asked = plan?.rest ? { ...input, schema: plan.rest } : input;
      const answer = await answerFromModel(asked, body, started);
      const data = plan ? mergeAnswer(input.schema, plan.mapping, answer.page.data) : answer.page.data;
      const provenance = provenanceOf(
        input.schema,
        data,
        { structured: plan?.mapping.paths },
        body.slice(0, config.LLM_MAX_CONTENT_CHARS),
      );
      // The answer's debug capture shows where each value came from as well.
      if (answer.captureId) await deps.debug?.setProvenance(answer.captureId, provenance);
      return { page: { ...answer.page, data, ...sourceOf(plan), provenance }, result: answer.result };
    });
  }

  /** What the page's structured data answers of the schema (null: nothing, or the job turned it off). */
  function planOf(input: AnswerInput, body: string, structured?: StructuredItem[] | null) {
    return input.structuredData === false ? null : planFromStructuredData(input.schema, structured, body);
  }

  /** Asks the chain for the schema's data; falls back along the chain on failures that allow it. */
  async function answerFromModel(
    input: AnswerInput,
    body: string,
    started: number,
  ): Promise<{ page: PageCompletedData; result: ExtractWithModelResult; captureId?: string }> {
    const content = body.slice(0, config.LLM_MAX_CONTENT_CHARS);
    const chain = await chainOf(input);
    const spend: Spend = { inputTokens: 0, outputTokens: 0, llmCostUsd: 0, priceKnown: true };
    let attempt = 0;
    let captureId: string | undefined;
    const capture = async (c: CaptureInput) => {
      attempt++;
      if (!input.captureDebug || !deps.debug) return;
      const record = toCapture(input, c, attempt, body);
      await deps.debug.add(input.jobId, record);
      captureId = record.id;
    };
    let lastError: CategorizedError | undefined;
    for (const entry of chain) {
      try {
        const result = await tryEntry(entry, input, content, spend, capture);
        return { ...pageResult(input, entry, result, spend, Date.now() - started), captureId };
      } catch (err) {
        if (cancellationOf()) throw err; // stopping: no other model is asked
        if (!(err instanceof CategorizedError) || !shouldFallBack(err.category, err.details)) throw err;
        lastError = err;
      }
    }
    throw lastError ?? new CategorizedError('no_models', 'no model answered');
  }

  /**
   * Extracts from content in hand (crawl pages keep theirs in memory) and records the page's result:
   * projected before returning, or (`deferred`, crawl pages) stored and projected in the background.
   */
  async function extractFromContent(
    input: Omit<ExtractWithModelInput, 'contentId'>,
    body: string,
    projection: 'awaited' | 'deferred' = 'awaited',
    structured?: StructuredItem[] | null,
  ): Promise<ExtractWithModelResult> {
    const { page, result } = await answerFromContent(input, body, { structured });
    await recordPage(input, page, projection);
    return result;
  }

  /**
   * Records a page's result event: projected before returning, or stored and projected in the background.
   * `after`: events written with it in the same append (an extract's job.completed), one projection for all.
   */
  async function recordPage(
    input: Pick<ExtractWithModelInput, 'jobId' | 'tenantId' | 'eventSeq' | 'eventId' | 'revises'>,
    answered: PageCompletedData,
    projection: 'awaited' | 'deferred',
    after: readonly JobEvent[] = [],
  ): Promise<void> {
    const page = input.revises ? { ...answered, revises: input.revises } : answered;
    const events: JobEvent[] = [
      {
        type: 'page.completed',
        data: page,
        job_id: input.jobId,
        tenant_id: input.tenantId,
        seq: input.eventSeq,
        event_id: input.eventId,
        at: new Date().toISOString(),
      },
      ...after,
    ];
    if (projection === 'awaited') await deps.events.append(events);
    else {
      const logger = currentActivity()?.log ?? console;
      await deps.events.appendDeferred(events, (err) =>
        logger.warn('projecting the job failed; its next event retries', {
          jobId: input.jobId,
          error: String(err),
        }),
      );
    }
  }

  const extractWithModel = async (input: ExtractWithModelInput): Promise<ExtractWithModelResult> => {
    const content = await categorized(() => deps.contents.get(input.contentId));
    const withFormat = content.format ? { ...input, contentFormat: content.format } : input;
    return extractFromContent(withFormat, content.body, 'awaited', content.structured);
  };
  return { extractWithModel, extractFromContent, answerFromContent, recordPage, planOf };

  /**
   * A page answered without the model, from its structured data and (crawls) its template's learned
   * extractor for the rest: no model call, 0 tokens, no cost.
   */
  function noModel(
    input: AnswerInput,
    plan: StructuredPlan | null,
    learned: LearnedAnswer | undefined,
    durationMs: number,
  ): { page: PageCompletedData; result: ExtractWithModelResult } {
    const none = { provider: '', model: '', position: 0, isByok: false };
    const spend: Spend = { inputTokens: 0, outputTokens: 0, llmCostUsd: 0, priceKnown: true };
    const mapping = plan?.mapping ?? { data: {}, answered: [], missing: [], paths: {} };
    const data = mergeAnswer(input.schema, mapping, learned?.data ?? {});
    const { page, result } = pageResult(input, none, { data }, spend, durationMs);
    const selectors = Object.fromEntries(
      Object.entries(learned?.selectors ?? {}).filter(([name]) => !(name in mapping.data)),
    );
    const provenance = provenanceOf(
      input.schema,
      data,
      { structured: mapping.paths, learned: selectors },
      '',
    );
    const source = sourceOf(plan);
    // With a learned extractor's values: its alone, or mixed with structured data's.
    if (learned) source.data_source = plan ? 'mixed' : 'learned_extractor';
    return { page: { ...page, ...source, provenance }, result };
  }

  function pageResult(
    input: AnswerInput,
    entry: Pick<ResolvedEntry, 'provider' | 'model' | 'position' | 'isByok'>,
    attempt: Attempt,
    spend: Spend,
    durationMs: number,
  ): { page: PageCompletedData; result: ExtractWithModelResult } {
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
}

interface CaptureInput {
  entry: ResolvedEntry;
  user: string;
  content: string;
  jsonSchema: Record<string, unknown>;
  isRetry: boolean;
  started: number;
  answer?: ModelAnswer;
  cost?: number;
  data?: unknown;
  error?: CategorizedError;
  parseError?: string;
}

/** A provider's error text may echo the key it was sent: never let it reach a job or a log. */
function redacted(err: CategorizedError, entry: ResolvedEntry): CategorizedError {
  const message = redactSecrets(err.message, entry.apiKey ? [entry.apiKey] : []);
  return message === err.message
    ? err
    : new CategorizedError(err.category, message, err.retryable, err.details);
}

function toCapture(input: AnswerInput, c: CaptureInput, attempt: number, rawPage: string): DebugCapture {
  const secrets = c.entry.apiKey ? [c.entry.apiKey] : [];
  const clean = (text: string) => redactSecrets(text, secrets);
  return {
    id: `${input.jobId}:${input.pageId}:${String(attempt).padStart(3, '0')}`,
    api_version: API_VERSION,
    job_type: input.jobType ?? 'extract',
    timestamp: new Date(c.started).toISOString(),
    url: input.url,
    is_byok: c.entry.isByok,
    sequence: attempt,
    request: {
      content_size: rawPage.length,
      fallback_position: c.entry.position,
      max_tokens: c.entry.maxTokens,
      prompt_size: SYSTEM_PROMPT.length + c.user.length,
      fetch_mode: input.fetch.fetchMode,
      ...(input.fetch.actions ? { actions: input.fetch.actions } : {}),
      model: c.entry.model,
      page_content: clean(c.content),
      prompt: clean(input.schema.prompt ?? ''),
      provider: c.entry.provider,
      schema: JSON.stringify(c.jsonSchema),
      system_prompt: SYSTEM_PROMPT,
      user_prompt: clean(c.user),
      hints_applied: {},
      is_retry: c.isRetry,
      json_mode: true,
      temperature: c.entry.temperature,
    },
    response: {
      cost_usd: c.cost ?? 0,
      duration_ms: Date.now() - c.started,
      input_tokens: c.answer?.inputTokens ?? 0,
      output_tokens: c.answer?.outputTokens ?? 0,
      error: c.error ? clean(c.error.message) : '',
      error_category: c.error?.category ?? '',
      parse_error: c.parseError ?? '',
      raw_output: clean(c.answer?.text ?? ''),
      parsed_output: c.data ?? null,
      success: !c.error && c.data !== undefined && !c.parseError,
    },
  };
}

const safeName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'extraction';

function describe(errors: ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}
