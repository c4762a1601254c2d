// GET /usage as a pure tally: jobs (their totals, from the job projections the event log makes) by day and job
// type, and pages (the model each page's result records) by provider and model.
import type { JobView } from './reducers/job.js';
import type { ResultView } from './reducers/results.js';

export interface UsageTotals {
  jobs: number;
  byok_jobs: number;
  charged_usd: number;
  llm_cost_usd: number;
  input_tokens: number;
  output_tokens: number;
}

export interface ModelUsage {
  pages: number;
  charged_usd: number;
  llm_cost_usd: number;
  input_tokens: number;
  output_tokens: number;
}

const round = (usd: number) => Math.round(usd * 1e9) / 1e9;
const noTotals = (): UsageTotals => ({
  jobs: 0,
  byok_jobs: 0,
  charged_usd: 0,
  llm_cost_usd: 0,
  input_tokens: 0,
  output_tokens: 0,
});
const noModelUsage = (): ModelUsage => ({
  pages: 0,
  charged_usd: 0,
  llm_cost_usd: 0,
  input_tokens: 0,
  output_tokens: 0,
});

function addJob(into: UsageTotals, job: JobView) {
  into.jobs++;
  if (job.is_byok) into.byok_jobs++;
  into.charged_usd = round(into.charged_usd + job.cost_usd);
  into.llm_cost_usd = round(into.llm_cost_usd + job.llm_cost_usd);
  into.input_tokens += job.token_usage_input;
  into.output_tokens += job.token_usage_output;
}

function addPage(into: ModelUsage, page: ResultView) {
  into.pages++;
  into.charged_usd = round(into.charged_usd + page.cost_usd);
  into.llm_cost_usd = round(into.llm_cost_usd + page.llm_cost_usd);
  into.input_tokens += page.input_tokens;
  into.output_tokens += page.output_tokens;
}

function entry<K extends string, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (!value) {
    value = make();
    map.set(key, value);
  }
  return value;
}

export class UsageTally {
  private readonly totals = noTotals();
  private readonly days = new Map<string, UsageTotals>();
  private readonly types = new Map<JobView['type'], UsageTotals>();
  private readonly providers = new Map<string, ModelUsage>();
  private readonly models = new Map<string, ModelUsage & { provider: string; model: string }>();

  job(job: JobView) {
    addJob(this.totals, job);
    addJob(entry(this.days, job.created_at.slice(0, 10), noTotals), job);
    addJob(entry(this.types, job.type, noTotals), job);
  }

  /** A page that called a model (pages answered without one have no provider and count in no model). */
  page(page: ResultView) {
    if (!page.provider || !page.model) return;
    addPage(entry(this.providers, page.provider, noModelUsage), page);
    const { provider, model } = page;
    addPage(
      entry(this.models, `${provider}\u0000${model}`, () => ({ provider, model, ...noModelUsage() })),
      page,
    );
  }

  report() {
    const sorted = <K extends string, T>(map: Map<K, T>) =>
      [...map.entries()].sort(([a], [b]) => a.localeCompare(b));
    return {
      total_jobs: this.totals.jobs,
      byok_jobs: this.totals.byok_jobs,
      total_charged_usd: this.totals.charged_usd,
      llm_cost_usd: this.totals.llm_cost_usd,
      input_tokens: this.totals.input_tokens,
      output_tokens: this.totals.output_tokens,
      by_day: sorted(this.days).map(([date, t]) => ({ date, ...t })),
      by_job_type: sorted(this.types).map(([type, t]) => ({ type, ...t })),
      by_provider: sorted(this.providers).map(([provider, u]) => ({ provider, ...u })),
      by_model: sorted(this.models).map(([, u]) => u),
    };
  }
}
