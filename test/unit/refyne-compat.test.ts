// The pure parts behind the refyne API version and the account operations: reading requests built from the
// product's models, the merged-results object, scopes, tiers, the usage tally and signed download tokens.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { dropAbsentNulls, renameAliases } from '../../api/request-leniency.js';
import { routeAccess } from '../../api/scopes.js';
import { scopesAllow, scopesFor } from '../../shared/api-keys.js';
import { loadConfig } from '../../shared/config.js';
import { readDownload, signDownload } from '../../shared/download-links.js';
import { mergeIntoObject } from '../../shared/merge-results.js';
import type { JobView } from '../../shared/reducers/job.js';
import type { ResultView } from '../../shared/reducers/results.js';
import { appliedLimits, pricingTiers } from '../../shared/tiers.js';
import { UsageTally } from '../../shared/usage.js';

describe('requests built from the product models', () => {
  const Schema = z
    .object({
      url: z.string(),
      fetch_mode: z.enum(['auto', 'static']).default('auto'),
      note: z.string().nullable().optional(),
      options: z
        .object({ max: z.number().optional(), flag: z.boolean().default(true) })
        .strict()
        .optional(),
      steps: z
        .array(z.object({ name: z.string(), opts: z.record(z.string(), z.unknown()).optional() }))
        .optional(),
      schema: z.string().optional(),
      schema_id: z.string().optional(),
    })
    .strict()
    .meta({ oneOf: [{ required: ['schema'] }, { required: ['schema_id'] }] });

  test('null is absent where a field may be left out and refuses null, at every depth', () => {
    const body: Record<string, unknown> = {
      url: 'u',
      fetch_mode: null,
      note: null,
      options: { max: null, flag: null },
      steps: [{ name: 'a', opts: null }],
      schema: null,
    };
    dropAbsentNulls(Schema, body);
    assert.deepEqual(body, {
      url: 'u',
      note: null, // takes null: kept
      options: {},
      steps: [{ name: 'a' }],
      schema: null, // its presence is what oneOf tests: left for validation to refuse
    });
    const required = { url: null };
    dropAbsentNulls(Schema, required);
    assert.deepEqual(required, { url: null });
  });

  test('camelCase aliases become their field unless the field is given too', () => {
    const body: Record<string, unknown> = { url: 'u', fetchMode: 'static', llmConfig: {} };
    renameAliases(Schema, body);
    assert.deepEqual(body, { url: 'u', fetch_mode: 'static', llmConfig: {} }); // no llm_config field here
    const both: Record<string, unknown> = { fetch_mode: 'auto', fetchMode: 'static' };
    renameAliases(Schema, both);
    assert.deepEqual(both, { fetch_mode: 'auto', fetchMode: 'static' });
  });
});

test('merged results as one object: lists merged and de-duplicated, first values kept, the rest under items', () => {
  assert.deepEqual(
    mergeIntoObject([
      { title: 'A', products: [{ url: 'x', name: 'X' }], empty: '' },
      { title: 'B', products: [{ url: 'x', name: 'X', price: 1 }, { url: 'y' }], empty: 'now' },
      'a prompt answer',
      null,
    ]),
    {
      title: 'A',
      empty: 'now',
      products: [{ url: 'x', name: 'X', price: 1 }, { url: 'y' }],
      items: ['a prompt answer'],
    },
  );
});

test('scopes: what each route needs and which scopes grant it', () => {
  assert.deepEqual(routeAccess('POST', '/api/v1/extract'), ['extract']);
  assert.deepEqual(routeAccess('GET', '/api/v1/jobs/:id/results'), ['jobs.read']);
  assert.deepEqual(routeAccess('GET', '/api/v1/sites'), ['read']);
  assert.deepEqual(routeAccess('DELETE', '/api/v1/keys/:id'), ['manage']);
  assert.deepEqual(routeAccess('POST', '/mcp'), ['any']);
  assert.ok(scopesAllow(['read'], ['jobs.read']));
  assert.ok(!scopesAllow(['read'], ['extract']));
  assert.ok(!scopesAllow(['extract', 'crawl', 'jobs', 'read'], ['manage']));
  assert.deepEqual(scopesFor(['crawl']), ['full', 'crawl']);
});

test("tiers: the operator's sets, the default one, and a tenant's own settings winning", () => {
  const config = loadConfig({
    PRICING_TIERS: JSON.stringify({ free: { max_concurrent_jobs: 1 }, pro: { monthly_budget_usd: 9 } }),
    DEFAULT_PRICING_TIER: 'pro',
    RATE_LIMIT_PER_MINUTE: '70',
  });
  assert.deepEqual(
    pricingTiers(config).map((t) => [t.name, t.is_default, t.rate_limit_per_minute]),
    [
      ['free', false, 70],
      ['pro', true, 70],
    ],
  );
  assert.deepEqual(appliedLimits(config, { rate_limit_per_minute: null }), {
    tier: 'pro',
    rate_limit_per_minute: 70,
    monthly_budget_usd: 9,
    max_concurrent_jobs: null,
    max_pages_per_crawl: null,
  });
  const own = appliedLimits(config, { tier: 'free', rate_limit_per_minute: 5, monthly_budget_usd: null });
  assert.deepEqual(
    [own.tier, own.rate_limit_per_minute, own.monthly_budget_usd, own.max_concurrent_jobs],
    ['free', 5, null, 1],
  );
  assert.equal(appliedLimits(loadConfig({}), { rate_limit_per_minute: null }).tier, 'default');
  assert.throws(() => loadConfig({ PRICING_TIERS: '{"a": {}}', DEFAULT_PRICING_TIER: 'b' }), /not a tier/);
  assert.throws(() => loadConfig({ PRICING_TIERS: '{"a": {"rate": 1}}' }), /PRICING_TIERS/);
});

test('usage tally: jobs by day and type, pages by the provider and model that answered', () => {
  const tally = new UsageTally();
  const job = (type: JobView['type'], day: string, cost: number, byok = false) =>
    ({
      type,
      created_at: `${day}T10:00:00.000Z`,
      is_byok: byok,
      cost_usd: cost,
      llm_cost_usd: cost,
      token_usage_input: 10,
      token_usage_output: 2,
    }) as JobView;
  tally.job(job('extract', '2026-11-01', 0.1));
  tally.job(job('crawl', '2026-11-02', 0.2, true));
  const page = (provider: string | null, model: string | null) =>
    ({ provider, model, cost_usd: 0.1, llm_cost_usd: 0.1, input_tokens: 5, output_tokens: 1 }) as ResultView;
  tally.page(page('openai', 'gpt-4o-mini'));
  tally.page(page('openai', 'gpt-4o-mini'));
  tally.page(page(null, null)); // structured data: no model
  const report = tally.report();
  assert.deepEqual([report.total_jobs, report.byok_jobs, report.total_charged_usd], [2, 1, 0.3]);
  assert.deepEqual(
    report.by_day.map((d) => [d.date, d.jobs]),
    [
      ['2026-11-01', 1],
      ['2026-11-02', 1],
    ],
  );
  assert.deepEqual(
    report.by_job_type.map((t) => t.type),
    ['crawl', 'extract'],
  );
  assert.deepEqual(report.by_model, [
    {
      provider: 'openai',
      model: 'gpt-4o-mini',
      pages: 2,
      charged_usd: 0.2,
      llm_cost_usd: 0.2,
      input_tokens: 10,
      output_tokens: 2,
    },
  ]);
});

test('download tokens: genuine ones read back, any change or another key reads nothing', () => {
  const key = randomBytes(32);
  const grant = { tenantId: 'ten_a', jobId: 'job_1', format: 'yaml' as const, expiresAt: 1_900_000_000_000 };
  const token = signDownload(key, grant);
  assert.deepEqual(readDownload(key, token), grant);
  assert.equal(readDownload(randomBytes(32), token), null);
  const [body, signature] = token.split('.') as [string, string];
  const forged = Buffer.from(Buffer.from(body, 'base64url').toString().replace('job_1', 'job_2')).toString(
    'base64url',
  );
  assert.equal(readDownload(key, `${forged}.${signature}`), null);
  for (const bad of ['', 'x', `${body}.`, `${body}.${signature}.x`])
    assert.equal(readDownload(key, bad), null);
});
