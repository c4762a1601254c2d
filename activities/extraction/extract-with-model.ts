// A page's data: from its structured data, a learned extractor, or the chain's models (each asked through
// llm/dialogue.ts, falling back along the chain), recorded as the page's result event by the activity itself
// so the data never passes through workflow history. The result's shape is page-result.ts's, the debug
// capture debug-capture.ts's.

import { CategorizedError } from '../../shared/errors.js';
import type { PageCompletedData } from '../../shared/events.js';
import type { StructuredItem } from '../../shared/structured-data.js';
import type { StoreDeps } from '../common/deps.js';
import { cancellationOf, categorized } from '../common/failure.js';
import {
  mergeAnswer,
  planFromStructuredData,
  type StructuredPlan,
  sourceOf,
} from '../reading/structured-data/answer.js';
import { makeBudgetGuard } from './budget-guard.js';
import { toCapture } from './debug-capture.js';
import type { AnswerInput, ExtractWithModelResult, LearnedAnswer } from './extraction-types.js';
import { shouldFallBack } from './llm/chain.js';
import { makeChainCache } from './llm/chain-cache.js';
import { askModel, type CaptureInput, noSpend } from './llm/dialogue.js';
import { noModel, pageResult } from './page-result.js';
import { provenanceOf } from './provenance.js';
import { makeRecordPage } from './record-events.js';

export function makeExtractor(deps: StoreDeps) {
  const { config } = deps;
  const chainOf = makeChainCache(deps);
  const recordPage = makeRecordPage(deps);
  const budget = makeBudgetGuard(deps);
  const settings = { timeoutMs: config.LLM_TIMEOUT_MS, allowPrivate: config.ALLOW_PRIVATE_ADDRESSES };

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
      if (plan && !plan.rest) return noModel(config, input, plan, undefined, Date.now() - started);
      // The model is asked only what neither the structured data nor a learned extractor answered.
      const open = (plan?.rest ?? input.schema).fields.filter((f) => !(learned && f.name in learned.data));
      if (learned && open.length === 0) return noModel(config, input, plan, learned, Date.now() - started);
      const narrowed = plan?.rest || learned;
      const asked = narrowed ? { ...input, schema: { ...input.schema, fields: open } } : input;
      const answer = await answerFromModel(asked, body, started);
      const own = learned ? learnedOnly(learned, plan) : undefined;
      const modelData = answer.page.data;
      const answered =
        typeof modelData === 'object' && modelData !== null && !Array.isArray(modelData)
          ? { ...modelData, ...own?.data }
          : { ...own?.data };
      const data = plan || own ? mergeAnswer(input.schema, mappingOf(plan), answered) : answer.page.data;
      const provenance = provenanceOf(
        input.schema,
        data,
        { structured: plan?.mapping.paths, learned: own?.selectors },
        body.slice(0, config.LLM_MAX_CONTENT_CHARS),
      );
      // The answer's debug capture shows where each value came from as well.
      if (answer.captureId) await deps.debug?.setProvenance(answer.captureId, provenance);
      const source = sourceOf(plan);
      if (own && Object.keys(own.data).length > 0) source.data_source = 'mixed';
      return { page: { ...answer.page, data, ...source, provenance }, result: answer.result };
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
    const spend = noSpend();
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
        const result = await askModel(entry, input, content, { settings, budget, spend, capture });
        return { ...pageResult(config, input, entry, result, spend, Date.now() - started), captureId };
      } catch (err) {
        if (cancellationOf()) throw err; // stopping: no other model is asked
        if (!(err instanceof CategorizedError) || !shouldFallBack(err.category, err.details)) throw err;
        lastError = err;
      }
    }
    throw lastError ?? new CategorizedError('no_models', 'no model answered');
  }

  /**
   * Starts what the job's first model call reads (its chain and keys, the tenant's monthly budget) while
   * the page is still being fetched and cleaned; a page that needs no model leaves them unused.
   */
  function warm(input: Pick<AnswerInput, 'jobId' | 'tenantId' | 'llm' | 'budget'>): void {
    chainOf(input).catch(() => undefined); // a failure is met again, and reported, when the chain is asked
    budget.warm(input);
  }
  return { answerFromContent, recordPage, planOf, warm };
}

/** A learned extractor's values and selectors for the fields structured data did not answer. */
function learnedOnly(learned: LearnedAnswer, plan: StructuredPlan | null): LearnedAnswer {
  const out: LearnedAnswer = { data: {}, selectors: {} };
  for (const [name, value] of Object.entries(learned.data)) {
    if (plan && name in plan.mapping.data) continue;
    out.data[name] = value;
    const selector = learned.selectors[name];
    if (selector !== undefined) out.selectors[name] = selector;
  }
  return out;
}

const mappingOf = (plan: StructuredPlan | null) =>
  plan?.mapping ?? { data: {}, answered: [], missing: [], paths: {} };
