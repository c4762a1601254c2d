// Hard budgets: max_cost_usd and max_tokens on a job and a tenant's monthly budget are checked
// before every model call against the call's worst case. A crawl stops taking pages and keeps what it has;
// a budget too small for one call makes no call at all.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, beforeEach, describe, test } from 'node:test';
import { JobStreamCursor } from '../../../shared/sse-events.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const ITEMS = 12;
const SCHEMA = { name: 'string', price: 'number' };
const truth = (k: number) => ({ name: `Lamp ${k}`, price: 10 + k });
/**
 * A call's worst case reserves the model's whole max output: 4096 tokens at gpt-4o-mini's $0.60 per million.
 * A budget that much plus $0.0002 affords a few of the fake model's pages (~160 tokens, ~$0.00003 each)
 * once the prompt's estimate is reserved too.
 */
const AFFORDS_A_FEW_USD = 4096 * 0.6e-6 + 0.0002;
const AFFORDS_A_FEW_TOKENS = 4096 + 1500;

let svc: TestService;
let site: FixtureSite;

before(async () => {
  site = await startFixtureSite();
  site.route(
    '/shop',
    `<!doctype html><html><head><title>Shop</title></head><body><h1>Lamps</h1><ul>${Array.from(
      { length: ITEMS },
      (_, i) => `<li><a class="item" href="/p/${i + 1}">Lamp ${i + 1}</a></li>`,
    ).join('')}</ul></body></html>`,
  );
  for (let k = 1; k <= ITEMS; k++)
    site.route(
      `/p/${k}`,
      `<!doctype html><html><head><title>Lamp ${k}</title></head><body><main><h1>Lamp ${k}</h1>` +
        `<p>Price: $${10 + k}.00</p><p>A lamp for every desk.</p></main></body></html>`,
    );
  svc = await startTestService({
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
    llm: {
      respond: ({ userText }) => {
        const k = /Page URL: \S+\/p\/(\d+)/.exec(userText)?.[1];
        return k ? truth(Number(k)) : { name: null, price: null };
      },
    },
  });
});
after(async () => {
  await site?.close();
  await svc?.close();
});
beforeEach(() => svc.llm.reset());

const post = (url: string, payload: object, key?: string) =>
  svc.app.inject({ method: 'POST', url, headers: svc.auth(key), payload });
const extract = (payload: object, key?: string) =>
  post('/api/v1/extract', { url: `${site.url}/p/1`, schema: SCHEMA, ...payload }, key);
const getJob = (id: string, key?: string) =>
  svc.app.inject({ url: `/api/v1/jobs/${id}`, headers: svc.auth(key) }).then((r) => r.json());
const results = (id: string) =>
  svc.app.inject({ url: `/api/v1/jobs/${id}/results`, headers: svc.auth() }).then((r) => r.json());
/** One page at a time, every page to the model (no learned extractors), so spend grows page by page. */
async function crawl(payload: object) {
  const res = await post('/api/v1/crawl', {
    url: `${site.url}/shop`,
    schema: SCHEMA,
    learn_extractors: false,
    options: { follow_selector: 'a.item', max_depth: 1, concurrency: 1, max_pages: ITEMS + 1 },
    ...payload,
  });
  assert.equal(res.statusCode, 202, res.body);
  return waitForJobEnd(svc, res.json().job_id, 90_000);
}
/** The stream's last event for the job, folded from its event log as GET /jobs/{id}/stream does. */
async function streamEnd(jobId: string) {
  const cursor = new JobStreamCursor(null, `/api/v1/jobs/${jobId}/results`);
  const events = (await svc.deps.events.list(jobId)).flatMap((e) => cursor.next(e));
  return events.at(-1);
}

describe('hard budgets', () => {
  test('a crawl whose max_cost_usd affords a few pages stops mid-way, keeps its results and ends completed', async () => {
    const maxCost = AFFORDS_A_FEW_USD;
    const job = await crawl({ max_cost_usd: maxCost });
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.budget_exhausted, true);
    assert.equal(job.max_cost_usd, maxCost);
    assert.equal(job.max_tokens, null);
    assert.ok(job.page_count >= 2 && job.page_count < ITEMS + 1, `page_count ${job.page_count}`);
    assert.ok(job.cost_usd > 0 && job.cost_usd <= maxCost, `cost_usd ${job.cost_usd}`);
    assert.ok(svc.llm.requests.length < ITEMS + 1, `${svc.llm.requests.length} model calls`);
    assert.equal(svc.llm.requests.length, job.page_count, 'no call beyond the pages completed');
    assert.equal(job.urls_queued, 0);
    const pages = await results(job.id);
    const done = pages.filter((p: { status: string }) => p.status === 'completed');
    assert.equal(done.length, job.page_count);
    for (const p of done) {
      const k = /\/p\/(\d+)$/.exec(p.url)?.[1];
      if (k) assert.deepEqual(p.data, truth(Number(k)));
    }
    const refused = pages.filter((p: { status: string }) => p.status === 'skipped');
    assert.equal(refused.length, 1, 'one page was refused at a time (concurrency 1)');
    assert.equal(refused[0].error_category, 'quota_exceeded');
    assert.match(refused[0].error_message, /max_cost_usd/);
    const end = await streamEnd(job.id);
    assert.ok(end?.event === 'complete');
    assert.equal(end.data.budget_exhausted, true);
  });

  test('an extract whose max_cost_usd cannot afford one call fails quota_exceeded without calling the model', async () => {
    const res = await extract({ max_cost_usd: 0.00001 });
    assert.equal(res.statusCode, 429, res.body);
    const problem = res.json();
    assert.equal(problem.error_category, 'quota_exceeded');
    assert.match(problem.detail, /max_cost_usd \(0\.00001 USD\)/);
    assert.equal(svc.llm.requests.length, 0);
    const job = await getJob(problem.job_id);
    assert.equal(job.status, 'failed');
    assert.equal(job.budget_exhausted, true);
    assert.equal(job.max_cost_usd, 0.00001);
    assert.equal(job.cost_usd, 0);
  });

  test('a crawl whose budget cannot afford one call fails quota_exceeded without calling the model', async () => {
    const job = await crawl({ max_cost_usd: 0.00001 });
    assert.equal(job.status, 'failed');
    assert.equal(job.error_category, 'quota_exceeded');
    assert.equal(job.budget_exhausted, true);
    assert.equal(job.page_count, 0);
    assert.equal(svc.llm.requests.length, 0);
    const end = await streamEnd(job.id);
    assert.ok(end?.event === 'complete');
    assert.equal(end.data.status, 'failed');
    assert.equal(end.data.budget_exhausted, true);
  });

  test('max_tokens: too small for one call refuses it, for extract and crawl', async () => {
    const res = await extract({ max_tokens: 100 });
    assert.equal(res.statusCode, 429, res.body);
    assert.match(res.json().detail, /max_tokens \(100 tokens\)/);
    const job = await crawl({ max_tokens: 100 });
    assert.equal(job.status, 'failed');
    assert.equal(job.error_category, 'quota_exceeded');
    assert.equal(job.max_tokens, 100);
    assert.equal(svc.llm.requests.length, 0);
  });

  test('max_tokens that affords a few calls stops a crawl with input + output tokens under it', async () => {
    // A call's worst case is its prompt at 2 characters a token plus 4096 output tokens.
    const maxTokens = AFFORDS_A_FEW_TOKENS;
    const job = await crawl({ max_tokens: maxTokens });
    assert.equal(job.status, 'completed');
    assert.equal(job.budget_exhausted, true);
    assert.ok(job.page_count >= 2 && job.page_count < ITEMS + 1, `page_count ${job.page_count}`);
    assert.ok(job.token_usage_input + job.token_usage_output <= maxTokens);
  });

  test('a budget that is never reached changes nothing', async () => {
    const res = await extract({ max_cost_usd: 5, max_tokens: 1_000_000 });
    assert.equal(res.statusCode, 200, res.body);
    const job = await getJob(res.json().job_id);
    assert.equal(job.budget_exhausted, false);
    assert.equal(job.max_cost_usd, 5);
    assert.equal(job.max_tokens, 1_000_000);
  });

  test("a tenant's monthly budget (admin set-budget) stops its next job; none lifts it", async () => {
    const t = await svc.newTenant('budget-monthly');
    const first = await extract({}, t.apiKey);
    assert.equal(first.statusCode, 200, first.body);
    const spent = first.json().usage.cost_usd;
    assert.ok(spent > 0);
    // What the tenant spent this month is the whole budget: the next call cannot fit.
    admin('set-budget', '--tenant', 'budget-monthly', '--monthly-usd', String(spent));
    svc.llm.reset();
    const second = await extract({}, t.apiKey);
    assert.equal(second.statusCode, 429, second.body);
    assert.match(second.json().detail, /tenant's monthly budget/);
    assert.equal(svc.llm.requests.length, 0);
    // Another tenant is not affected.
    assert.equal((await extract({})).statusCode, 200);
    admin('set-budget', '--tenant', 'budget-monthly', '--monthly-usd', 'none');
    assert.equal((await svc.deps.tenants.getTenant(t.tenantId))?.monthly_budget_usd, null);
    assert.equal((await extract({}, t.apiKey)).statusCode, 200);
  });

  test("a BYOK job's budget counts the provider's list price (its cost_usd is 0)", async () => {
    const maxCost = AFFORDS_A_FEW_USD;
    const job = await crawl({
      max_cost_usd: maxCost,
      llm_config: {
        provider: 'openai',
        model: 'gpt-4o-mini',
        api_key: 'sk-byok-budget',
        base_url: svc.llm.openaiBaseUrl,
      },
    });
    assert.equal(job.status, 'completed');
    assert.equal(job.is_byok, true);
    assert.equal(job.cost_usd, 0);
    assert.equal(job.budget_exhausted, true);
    assert.ok(job.page_count < ITEMS + 1);
    assert.ok(job.llm_cost_usd > 0 && job.llm_cost_usd <= maxCost, `llm_cost_usd ${job.llm_cost_usd}`);
  });
});

/** The operator's admin command against the test service's database. */
function admin(...args: string[]) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.config)) if (v !== undefined) env[k] = String(v);
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
}
