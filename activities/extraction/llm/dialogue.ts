// One model of the chain asked for a page's data: the prompt, the call (reserved against the job's budget
// first), the answer parsed and validated against the schema, asked once more with what was wrong.
import type { ErrorObject } from 'ajv';
import { CategorizedError } from '../../../shared/errors.js';
import { priceOf } from '../../../shared/pricing.js';
import { toJsonSchema } from '../../../shared/schema-input.js';
import { redactSecrets } from '../../../shared/secrets.js';
import type { makeBudgetGuard } from '../budget-guard.js';
import type { AnswerInput } from '../extraction-types.js';
import { validatorFor } from '../schema-validators.js';
import type { ResolvedEntry } from './chain.js';
import { parseAnswer, SYSTEM_PROMPT, userPrompt } from './prompt.js';
import { callModel, type ModelAnswer } from './providers.js';

/** Tokens and cost spent on one page, over every model call (failed ones cost money too). */
export interface Spend {
  inputTokens: number;
  outputTokens: number;
  llmCostUsd: number;
  priceKnown: boolean;
}

export const noSpend = (): Spend => ({ inputTokens: 0, outputTokens: 0, llmCostUsd: 0, priceKnown: true });

/** One model call as the debug capture keeps it (see debug-capture.ts). */
export interface CaptureInput {
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

export const round9 = (n: number) => Math.round(n * 1e9) / 1e9;

export interface DialogueSettings {
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * Asks one model of the chain for the schema's data from `content`, at most twice (the second time with
 * what was wrong), adding what each call cost to `spend` and handing each call to `capture`. Throws a
 * categorized error (its text free of the entry's key) when the model fails or answers wrongly twice.
 */
export async function askModel(
  entry: ResolvedEntry,
  input: AnswerInput,
  content: string,
  ctx: {
    settings: DialogueSettings;
    budget: ReturnType<typeof makeBudgetGuard>;
    spend: Spend;
    capture: (c: CaptureInput) => Promise<void>;
  },
): Promise<{ data: unknown }> {
  const { settings, budget, spend, capture } = ctx;
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
        timeoutMs: settings.timeoutMs,
        allowPrivate: settings.allowPrivate,
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

/** A provider's error text may echo the key it was sent: never let it reach a job or a log. */
function redacted(err: CategorizedError, entry: ResolvedEntry): CategorizedError {
  const message = redactSecrets(err.message, entry.apiKey ? [entry.apiKey] : []);
  return message === err.message
    ? err
    : new CategorizedError(err.category, message, err.retryable, err.details);
}

const safeName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'extraction';

function describe(errors: ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}
