// The four runs of the economy bench and what one run measures.
import type { Catalogue } from './catalogue.js';
import type { FakeModel } from './fake-model.js';
import { type Accuracy, accuracy, type ModelFree, type ModelReach, modelFree, modelReach } from './score.js';
import { runCrawl, type Stack } from './stack.js';

/** The request switches of each run. `both` sends the defaults explicitly, so a missing switch shows. */
export const RUNS = {
  'model-only': { structured_data: false, learn_extractors: false },
  'structured-data': { structured_data: true, learn_extractors: false },
  'learned-extractors': { structured_data: false, learn_extractors: true },
  both: { structured_data: true, learn_extractors: true },
} as const;
export type RunName = keyof typeof RUNS;

/**
 * One product per page. A listing shows many products and is no product's page, so the truth of a listing is
 * every field null; the description tells the model so.
 */
export const SCHEMA = {
  name: 'product',
  description:
    "One product of the shop, from that product's own page. On a page that is not one product's page " +
    '(a listing of many products, say), every field is null.',
  fields: {
    name: { type: 'string', description: "The product's name" },
    price: { type: 'number', description: 'The price to pay now (the sale price when on sale)' },
    currency: { type: 'string', description: 'ISO 4217 code of the price, e.g. USD' },
    sku: { type: 'string', description: 'The SKU or item number, e.g. AB-1234' },
    in_stock: { type: 'boolean', description: 'Whether it can be bought now' },
    brand: { type: 'string', description: 'The brand or maker' },
  },
};

export interface RunReport {
  run: RunName;
  request: Record<string, boolean>;
  available: boolean;
  note: string | null;
  status?: string;
  pages_done?: number;
  pages_failed?: number;
  seconds?: number;
  pages_per_second?: number;
  model?: ModelReach;
  /** The job's tokens (input + output) per page done. */
  tokens_per_page?: number;
  cost_usd?: number;
  llm_cost_usd?: number;
  accuracy?: {
    item_pages: Accuracy;
    deviating_pages: Accuracy;
    listing_pages: Accuracy;
    all_pages: Accuracy;
  };
  pages_by_source?: Record<string, number> | null;
  /** Values answered without the model and how many of them are wrong, per field. */
  model_free?: ModelFree;
  /** Learned-extractor documents the crawl made. */
  templates?: number;
  error?: string | null;
}

export function crawlPayload(cat: Catalogue, siteUrl: string, concurrency: number): Record<string, unknown> {
  return {
    url: `${siteUrl}/shop/list/1`,
    schema: SCHEMA,
    fetch_mode: 'static',
    options: {
      follow_selector: 'ul.products a.product-link',
      follow_pattern: '/shop/item/\\d+$',
      next_selector: 'nav.pagination a.next',
      max_pages: cat.listings + cat.items,
      max_depth: 1,
      concurrency,
      respect_robots: true,
    },
  };
}

const mentionsSwitch = (problem: unknown) => JSON.stringify(problem).includes('learn_extractors');

/**
 * One crawl of the shop with the run's switches. Until the API knows `learn_extractors`, it refuses the field
 * (422): a run that asks for learning is then "not available"; a run that turns it off is sent without the
 * field, which is what a service without learning does anyway.
 */
export async function measureRun(
  name: RunName,
  ctx: { stack: Stack; model: FakeModel; cat: Catalogue; siteUrl: string; concurrency: number },
): Promise<RunReport> {
  const request: Record<string, boolean> = { ...RUNS[name] };
  const base = crawlPayload(ctx.cat, ctx.siteUrl, ctx.concurrency);
  ctx.model.reset();
  let outcome = await runCrawl(ctx.stack, { ...base, ...request });
  let note: string | null = null;
  if (outcome.kind === 'refused' && outcome.status === 422 && mentionsSwitch(outcome.problem)) {
    if (request.learn_extractors) {
      const detail = `the API refuses learn_extractors (422): ${JSON.stringify(outcome.problem).slice(0, 300)}`;
      return { run: name, request, available: false, note: `not available: ${detail}` };
    }
    note = 'learn_extractors refused by the API (422): sent without it';
    const { learn_extractors: _dropped, ...rest } = request;
    ctx.model.reset();
    outcome = await runCrawl(ctx.stack, { ...base, ...rest });
  }
  if (outcome.kind === 'refused')
    return {
      run: name,
      request,
      available: false,
      note: `refused (${outcome.status}): ${JSON.stringify(outcome.problem).slice(0, 300)}`,
    };
  const { job, results } = outcome;
  const seconds =
    job.started_at && job.completed_at
      ? (Date.parse(job.completed_at) - Date.parse(job.started_at)) / 1000
      : outcome.wallSeconds;
  const pages = Math.max(1, job.page_count);
  return {
    run: name,
    request,
    available: true,
    note,
    status: job.status,
    pages_done: job.page_count,
    pages_failed: job.failed_count,
    seconds: round(seconds, 1),
    pages_per_second: round(job.page_count / seconds, 1),
    model: modelReach(ctx.cat.pages, ctx.model.calls),
    tokens_per_page: round((job.token_usage_input + job.token_usage_output) / pages, 1),
    cost_usd: job.cost_usd,
    llm_cost_usd: job.llm_cost_usd,
    accuracy: {
      item_pages: accuracy(ctx.cat.pages, results, ['item', 'deviating']),
      deviating_pages: accuracy(ctx.cat.pages, results, ['deviating']),
      listing_pages: accuracy(ctx.cat.pages, results, ['listing']),
      all_pages: accuracy(ctx.cat.pages, results, ['item', 'deviating', 'listing']),
    },
    pages_by_source: job.pages_by_source ?? null,
    model_free: modelFree(ctx.cat.pages, results),
    templates: outcome.templates,
    error: job.error_message,
  };
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
