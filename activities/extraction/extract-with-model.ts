// The worker's model port: the job's chain of models (each asked through llm/dialogue.ts, falling back
// along the chain), its budget and debug captures; and answerFromContent, the page's answer
// (answer-page.ts) over it, as an activity's failure. The result's shape is page-result.ts's, the debug
// capture debug-capture.ts's.

import { CategorizedError } from '../../shared/errors.js';
import type { PageCompletedData } from '../../shared/events.js';
import type { StoreDeps } from '../common/deps.js';
import { cancellationOf, categorized } from '../common/failure.js';
import { type AnswerSources, answerPage, planOf } from './answer-page.js';
import { makeBudgetGuard } from './budget-guard.js';
import { toCapture } from './debug-capture.js';
import type { AnswerInput, AnswerPorts, ExtractWithModelResult, PageModel } from './extraction-types.js';
import { shouldFallBack } from './llm/chain.js';
import { makeChainCache } from './llm/chain-cache.js';
import { askModel, type CaptureInput, noSpend } from './llm/dialogue.js';
import { pageResult } from './page-result.js';
import { makeRecordPage } from './record-events.js';

export function makeExtractor(deps: StoreDeps) {
  const { config } = deps;
  const model = makeModel(deps);
  const ports: AnswerPorts = { model, config };
  /** answerPage as an activity's failure (an ApplicationFailure of the error's category). */
  function answerFromContent(
    input: AnswerInput,
    body: string,
    from: AnswerSources = {},
  ): Promise<{ page: PageCompletedData; result: ExtractWithModelResult }> {
    return categorized(() => answerPage(ports, input, body, from));
  }
  return { answerFromContent, recordPage: makeRecordPage(deps), planOf, warm: model.warm, model };
}

/** The job's chain of models, as the pipeline's model port. */
export function makeModel(deps: StoreDeps): PageModel {
  const { config } = deps;
  const chainOf = makeChainCache(deps);
  const budget = makeBudgetGuard(deps);
  const settings = { timeoutMs: config.LLM_TIMEOUT_MS, allowPrivate: config.ALLOW_PRIVATE_ADDRESSES };

  /** Asks the chain for the schema's data; falls back along the chain on failures that allow it. */
  async function ask(input: AnswerInput, body: string, started: number) {
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

  return {
    ask,
    noteProvenance: async (captureId, provenance) => deps.debug?.setProvenance(captureId, provenance),
    /**
     * Starts what the job's first model call reads (its chain and keys, the tenant's monthly budget) while
     * the page is still being fetched and cleaned; a page that needs no model leaves them unused.
     */
    warm(input) {
      chainOf(input).catch(() => undefined); // a failure is met again, and reported, when the chain is asked
      budget.warm(input);
    },
  };
}
