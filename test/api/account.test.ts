// The operations a tenant's account needs beyond the interface: GET /usage, /pricing/tiers (and the tier's
// limits applied), /llm/models/{provider}, /health, and signed download links for a job's results.
// Jobs run on the real workflows with fake activities (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DOWNLOAD_KEY_PURPOSE, signDownload } from '../../shared/download-links.js';
import { SecretBox } from '../../shared/secrets.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

const TIERS = {
  free: { display_name: 'Free', rate_limit_per_minute: 500, max_concurrent_jobs: 1, max_pages_per_crawl: 2 },
  pro: { display_name: 'Pro', rate_limit_per_minute: 1000, monthly_budget_usd: 50 },
};

let svc: TestService;
const site: PageTable = pageTable();
let base: string;
let limited: { tenantId: string; apiKey: string };

const item = (title: string, links: string[] = []) =>
  html(
    title,
    `<h1>${title}</h1><p>Price: 80</p><p>${'Solid oak. '.repeat(30)}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`,
  );

before(async () => {
  svc = await startTestService({
    env: { PRICING_TIERS: JSON.stringify(TIERS), DEFAULT_PRICING_TIER: 'pro' },
    activities: fakeActivities({ pages: site.pages }),
  });
  site.route('/item', item('Chair'));
  site.route('/list', item('List', ['/a', '/b', '/c']));
  for (const p of ['a', 'b', 'c']) site.route(`/${p}`, item(`Item ${p}`));
  site.route('/slow', () => new Promise((done) => setTimeout(() => done(item('Slow')), 4000)));
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  limited = await svc.newTenant('limited');
  await svc.deps.tenants.setTier(limited.tenantId, 'free');
});
after(async () => {
  await svc?.close();
});

type Method = 'GET' | 'POST';
const call = (method: Method, url: string, payload?: object, key = svc.apiKey) =>
  svc.app.inject({ method, url, headers: svc.auth(key), ...(payload ? { payload } : {}) });
const extract = (key = svc.apiKey, path = '/item') =>
  call(
    'POST',
    '/api/v1/extract',
    { url: `${site.url}${path}`, schema: { name: 'string', price: 'number' } },
    key,
  );

describe('GET /pricing/tiers and the tier applied', () => {
  test("lists the operator's tiers and the caller's applied limits", async () => {
    const res = await call('GET', '/api/v1/pricing/tiers', undefined, limited.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(
      body.tiers.map((t: { name: string; is_default: boolean }) => [t.name, t.is_default]),
      [
        ['free', false],
        ['pro', true],
      ],
    );
    assert.deepEqual(body.your_tier, {
      tier: 'free',
      rate_limit_per_minute: 500,
      monthly_budget_usd: null,
      max_concurrent_jobs: 1,
      max_pages_per_crawl: 2,
    });
    assert.equal(res.headers['x-ratelimit-limit'], '500');
    const pro = (await call('GET', '/api/v1/pricing/tiers')).json().your_tier;
    assert.equal(pro.tier, 'pro');
    assert.equal(pro.monthly_budget_usd, 50);
  });

  test('a crawl asking more pages than the tier allows is a 422; one asking none gets the tier max', async () => {
    const over = await call(
      'POST',
      '/api/v1/crawl',
      {
        url: `${site.url}/list`,
        schema: { name: 'string' },
        options: { max_pages: 3, follow_selector: 'a' },
      },
      limited.apiKey,
    );
    assert.equal(over.statusCode, 422);
    assert.equal(over.json().errors[0].location, 'body.options.max_pages');
    const fits = await call(
      'POST',
      '/api/v1/crawl?wait=true&timeout=60',
      {
        url: `${site.url}/list`,
        schema: { name: 'string' },
        options: { follow_selector: 'a', max_depth: 1 },
      },
      limited.apiKey,
    );
    assert.equal(fits.statusCode, 200, fits.body);
    assert.equal(fits.json().page_count, 2);
  });

  test('past the tier concurrent jobs, a job start is a 429 with Retry-After', async () => {
    const slow = await call(
      'POST',
      '/api/v1/crawl',
      { url: `${site.url}/slow`, schema: { name: 'string' } },
      limited.apiKey,
    );
    assert.equal(slow.statusCode, 202, slow.body);
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 30 && !refused; i++) {
      const res = await extract(limited.apiKey);
      if (res.statusCode === 429) refused = res;
      else await sleep(100);
    }
    assert.ok(refused, 'a second job while one runs is refused');
    assert.equal(refused.json().type, '/problems/too-many-jobs');
    assert.equal(refused.headers['retry-after'], '5');
  });
});

describe('GET /usage', () => {
  test('totals and breakdowns by day, job type, provider and model', async () => {
    assert.equal((await extract()).statusCode, 200);
    assert.equal((await extract(svc.apiKey, '/a')).statusCode, 200);
    const res = await call('GET', '/api/v1/usage');
    assert.equal(res.statusCode, 200, res.body);
    const usage = res.json();
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(usage.to, today);
    assert.equal(usage.from, `${today.slice(0, 7)}-01`);
    assert.ok(usage.total_jobs >= 2);
    assert.equal(usage.byok_jobs, 0);
    assert.ok(usage.total_charged_usd > 0 && usage.input_tokens > 0);
    assert.deepEqual(
      usage.by_day.map((d: { date: string }) => d.date),
      [today],
    );
    const extracts = usage.by_job_type.find((t: { type: string }) => t.type === 'extract');
    assert.equal(extracts.jobs, usage.total_jobs);
    const [openai] = usage.by_provider;
    assert.equal(openai.provider, 'openai');
    assert.equal(openai.pages, usage.total_jobs);
    assert.deepEqual(
      usage.by_model.map((m: { provider: string; model: string }) => `${m.provider}/${m.model}`),
      ['openai/gpt-4o-mini'],
    );
    const other = (await call('GET', '/api/v1/usage', undefined, limited.apiKey)).json();
    assert.ok(
      other.by_job_type.every((t: { type: string }) => t.type === 'crawl'),
      "another tenant's jobs only",
    );
    const backwards = await call('GET', '/api/v1/usage?from=2026-02-01&to=2026-01-01');
    assert.equal(backwards.statusCode, 422);
    const empty = (await call('GET', '/api/v1/usage?from=2020-01-01&to=2020-12-31')).json();
    assert.deepEqual([empty.total_jobs, empty.by_day], [0, []]);
  });
});

describe('GET /jobs/{id}/download', () => {
  test('a signed link serves the results without an API key, bound to the job and for an hour', async () => {
    const { job_id, data } = (await extract()).json();
    // Over HTTP: the link names the address the caller reached the service at (PUBLIC_BASE_URL when set).
    const res = await fetch(`${base}/api/v1/jobs/${job_id}/download`, { headers: svc.auth() });
    assert.equal(res.status, 200);
    const link = await res.json();
    assert.equal(link.job_id, job_id);
    const ttl = Date.parse(link.expires_at) - Date.now();
    assert.ok(ttl > 59 * 60_000 && ttl <= 60 * 60_000, `expires in an hour (${ttl} ms)`);
    assert.ok(link.download_url.startsWith(`${base}/downloads/`));
    assert.ok(!link.download_url.includes(svc.apiKey) && !link.download_url.includes(svc.tenantId));

    const got = await fetch(link.download_url);
    assert.equal(got.status, 200);
    assert.match(
      got.headers.get('content-disposition') ?? '',
      new RegExp(`attachment; filename="${job_id}.json"`),
    );
    assert.deepEqual(
      (await got.json()).map((r: { data: unknown }) => r.data),
      [data],
    );

    const jsonl = (await call('GET', `/api/v1/jobs/${job_id}/download?format=jsonl`)).json();
    const path = new URL(jsonl.download_url).pathname;
    const lines = (await (await fetch(`${base}${path}`)).text()).trim().split('\n');
    assert.equal(JSON.parse(lines[0] as string).data.price, data.price);

    const token = link.download_url.split('/downloads/')[1] as string;
    const [payload, signature] = token.split('.');
    const tampered = `${Buffer.from(
      Buffer.from(payload as string, 'base64url')
        .toString()
        .replace(svc.tenantId, limited.tenantId),
    ).toString('base64url')}.${signature}`;
    assert.equal((await fetch(`${base}/downloads/${tampered}`)).status, 404);
    const key = new SecretBox(svc.config.SECRETS_KEY).derivedKey(DOWNLOAD_KEY_PURPOSE);
    const expired = signDownload(key, {
      tenantId: svc.tenantId,
      jobId: job_id,
      format: 'json',
      expiresAt: Date.now() - 1,
    });
    const gone = await fetch(`${base}/downloads/${expired}`);
    assert.equal(gone.status, 410);
    assert.equal((await gone.json()).type, '/problems/link-expired');
    // Another tenant gets no link to this job, and a link it signs for it opens nothing.
    assert.equal(
      (await call('GET', `/api/v1/jobs/${job_id}/download`, undefined, limited.apiKey)).statusCode,
      404,
    );
    const foreign = signDownload(key, {
      tenantId: limited.tenantId,
      jobId: job_id,
      format: 'json',
      expiresAt: Date.now() + 60_000,
    });
    assert.equal((await fetch(`${base}/downloads/${foreign}`)).status, 404);
  });
});

describe('GET /llm/models/{provider} and GET /health', () => {
  test('models with context size and list prices; an unknown provider is a 404', async () => {
    const res = await call('GET', '/api/v1/llm/models/openai');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.runnable, true);
    const mini = body.models.find((m: { id: string }) => m.id === 'gpt-4o-mini');
    assert.deepEqual(
      [mini.context_size, mini.input_price_per_mtok, mini.output_price_per_mtok, mini.is_free],
      [128000, 0.15, 0.6, false],
    );
    assert.ok(body.models.every((m: { deprecated: boolean }) => !m.deprecated));
    assert.equal((await call('GET', '/api/v1/llm/models/nope')).statusCode, 404);
    const ollama = (await call('GET', '/api/v1/llm/models/ollama')).json();
    assert.deepEqual([ollama.runnable, ollama.models], [true, []]);
  });

  test('health needs a key and answers the version and the dependencies', async () => {
    assert.equal((await svc.app.inject({ method: 'GET', url: '/api/v1/health' })).statusCode, 401);
    const health = (await call('GET', '/api/v1/health')).json();
    assert.deepEqual(health, {
      status: 'ok',
      version: '1.0.0',
      api_version: 'v1',
      checks: { temporal: 'ok', mongodb: 'ok' },
    });
  });
});
