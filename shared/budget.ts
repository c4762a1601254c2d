// Hard budgets: what a job may spend on model calls, and how a refusal is told apart from a
// provider's own quota error. Types and pure helpers only, so workflows can import them.
import type { JobBudget } from './schemas/job-spec.js';

/** A job's caps from the request (max_cost_usd, max_tokens); absent fields are no cap. */
export type { JobBudget };

/** Which budget refused a model call: named in the error's message and its details. */
export type BudgetName = 'max_cost_usd' | 'max_tokens' | 'tenant_monthly_usd';
export const BUDGET_NAMES: readonly BudgetName[] = ['max_cost_usd', 'max_tokens', 'tenant_monthly_usd'];

/** The budget named by an error's details ({budget}), or null: a quota_exceeded without it is the provider's. */
export function budgetOfDetails(details: unknown): BudgetName | null {
  const budget = (details as { budget?: unknown } | null | undefined)?.budget;
  return BUDGET_NAMES.includes(budget as BudgetName) ? (budget as BudgetName) : null;
}

/** The workflow input's `budget` from a request's max_cost_usd / max_tokens; nothing when neither is given. */
export function budgetInput(body: { max_cost_usd?: number; max_tokens?: number }): { budget?: JobBudget } {
  if (body.max_cost_usd === undefined && body.max_tokens === undefined) return {};
  return {
    budget: {
      ...(body.max_cost_usd === undefined ? {} : { maxCostUsd: body.max_cost_usd }),
      ...(body.max_tokens === undefined ? {} : { maxTokens: body.max_tokens }),
    },
  };
}

/** A job's budget as the job resource shows it (from the stored request; null: no cap). */
export function budgetShown(request: unknown): { max_cost_usd: number | null; max_tokens: number | null } {
  const budget = (request as { budget?: JobBudget } | undefined)?.budget;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { max_cost_usd: num(budget?.maxCostUsd), max_tokens: num(budget?.maxTokens) };
}
