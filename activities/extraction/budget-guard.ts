// Hard budgets before every model call: the call's worst case — its prompt at 2 characters a
// token plus the entry's whole max output — is reserved on the job's and the tenant's month's accounts
// (shared/store/budgets.ts) and the call is refused when that could pass a budget. After the call the
// reservation is released and what it actually spent is added. Retries and fallbacks are calls too.
import type { BudgetName, JobBudget } from '../../shared/budget.js';
import { CategorizedError } from '../../shared/errors.js';
import { priceOf } from '../../shared/pricing.js';
import {
  type Account,
  type Amount,
  jobAccount,
  type Refusal,
  tenantAccount,
} from '../../shared/store/budgets.js';
import { appliedLimits } from '../../shared/tiers.js';
import type { StoreDeps } from '../common/deps.js';
import type { ResolvedEntry } from './llm/chain.js';

/** A call's reservation: settle it with the tokens the call used, or release it when it failed. */
export interface BudgetHold {
  settle(inputTokens: number, outputTokens: number): Promise<void>;
  release(): Promise<void>;
}

export interface BudgetedJob {
  jobId: string;
  tenantId: string;
  budget?: JobBudget;
}

/** Characters per token assumed for a prompt not yet sent: low, so the estimate is high. */
const CHARS_PER_TOKEN_ESTIMATE = 2;
const round9 = (n: number) => Math.round(n * 1e9) / 1e9;
/** How long a monthly budget read ahead (warm) waits for its job's first model call. */
const WARM_MS = 60_000;
const NO_HOLD: BudgetHold = { settle: async () => {}, release: async () => {} };

export function makeBudgetGuard(deps: StoreDeps) {
  const { config, budgets } = deps;

  /** What the job pays for these tokens: list price × (1 + PRICE_MARKUP) on our keys, list price on BYOK. */
  function costOf(entry: ResolvedEntry, inputTokens: number, outputTokens: number): number {
    const llm = priceOf(entry.model, inputTokens, outputTokens, entry.provider).llm_cost_usd;
    return entry.isByok ? llm : round9(llm * (1 + config.PRICE_MARKUP));
  }

  /** Tenants' monthly budgets read ahead by warm(), each taken by its job's first call (see warm). */
  const warmed = new Map<string, Promise<number | null>>();
  const readMonthly = (tenantId: string) =>
    Promise.resolve(deps.tenants?.getTenant(tenantId)).then((t) =>
      t ? appliedLimits(config, t).monthly_budget_usd : null,
    );

  function monthlyBudget(job: BudgetedJob): Promise<number | null> {
    const ahead = warmed.get(job.jobId);
    warmed.delete(job.jobId);
    return ahead ?? readMonthly(job.tenantId);
  }

  /**
   * Starts reading the tenant's monthly budget while the page is fetched, for the job's first model call
   * (later calls read it again, so a budget set meanwhile counts). A read ahead that no call takes (the
   * page needed no model) is dropped after WARM_MS.
   */
  function warm(job: BudgetedJob): void {
    if (!budgets || warmed.has(job.jobId)) return;
    const ahead = readMonthly(job.tenantId);
    ahead.catch(() => warmed.delete(job.jobId));
    warmed.set(job.jobId, ahead);
    setTimeout(() => {
      if (warmed.get(job.jobId) === ahead) warmed.delete(job.jobId);
    }, WARM_MS).unref();
  }

  async function accountsOf(job: BudgetedJob): Promise<Account[]> {
    const { maxCostUsd, maxTokens } = job.budget ?? {};
    const accounts: Account[] = [];
    if (maxCostUsd !== undefined || maxTokens !== undefined) {
      accounts.push({
        id: jobAccount(job.jobId),
        limits: {
          ...(maxCostUsd === undefined ? {} : { usd: { max: maxCostUsd, budget: 'max_cost_usd' } }),
          ...(maxTokens === undefined ? {} : { tokens: { max: maxTokens, budget: 'max_tokens' } }),
        },
      });
    }
    // The month's spend is recorded whatever the limit, so a budget set mid-month counts it.
    const monthly = await monthlyBudget(job);
    accounts.push({
      id: tenantAccount(job.tenantId),
      limits: monthly === null ? {} : { usd: { max: monthly, budget: 'tenant_monthly_usd' } },
    });
    return accounts;
  }

  /** Reserves the call's worst case, or throws quota_exceeded (non-retryable, no fallback) naming the budget. */
  async function reserve(job: BudgetedJob, entry: ResolvedEntry, promptChars: number): Promise<BudgetHold> {
    if (!budgets) return NO_HOLD;
    const inputTokens = Math.ceil(promptChars / CHARS_PER_TOKEN_ESTIMATE);
    const amount: Amount = {
      usd: costOf(entry, inputTokens, entry.maxTokens),
      tokens: inputTokens + entry.maxTokens,
    };
    const held = await budgets.reserve(await accountsOf(job), amount);
    if ('refused' in held) throw refusalError(held.refused, entry);
    return {
      settle: (input, output) =>
        budgets.settle(held, { usd: costOf(entry, input, output), tokens: input + output }),
      release: () => budgets.release(held),
    };
  }

  return { reserve, warm };
}

const WHAT: Record<BudgetName, (limit: number) => string> = {
  max_cost_usd: (limit) => `the job's max_cost_usd (${limit} USD)`,
  max_tokens: (limit) => `the job's max_tokens (${limit} tokens)`,
  tenant_monthly_usd: (limit) => `the tenant's monthly budget (${limit} USD this month)`,
};

function refusalError(r: Refusal, entry: ResolvedEntry): CategorizedError {
  const unit = r.budget === 'max_tokens' ? ' tokens' : ' USD';
  const n = (v: number) => `${round9(v)}${unit}`;
  return new CategorizedError(
    'quota_exceeded',
    `budget exhausted: the next model call (${entry.provider}/${entry.model}) could use up to ${n(r.asked)}, ` +
      `which could exceed ${WHAT[r.budget](r.limit)}: ${n(r.spent)} spent, ${n(r.reserved)} reserved by calls ` +
      'in flight; the call was not made',
    false,
    { budget: r.budget, limit: r.limit, spent: round9(r.spent), next_call_max: round9(r.asked) },
  );
}
