// Prometheus metrics against the real stack: an extract (with a webhook that fails once) and a small crawl,
// then the API's /metrics, the worker's and the Temporal SDK's are scraped and their counts compared with
// what the jobs themselves report. METRICS_TOKEN guards both scrapes and opens nothing under /api/v1.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { JobEvent } from '../../../shared/events.js';
import { jobEventCounter } from '../../../shared/metrics/job-events.js';
import { createMetrics, MODEL_LABEL_LIMIT } from '../../../shared/metrics/registry.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { spawnWorkerProcess, startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';
import { type Receiver, startReceiver } from '../../webhooks/receiver.js';

const TOKEN = 'metrics-test-token-9f2c';
let svc: TestService;
let site: ShopSite;
let rx: Receiver;
let workerPort: number;
let temporalPort: number;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

before(async () => {
  workerPort = await freePort();
  temporalPort = await freePort();
  svc = await startTestService({
    env: {
      METRICS_TOKEN: TOKEN,
      WORKER_METRICS_PORT: String(workerPort),
      // The core runtime is per process and this file's process installs it first (node --test isolates files).
      TEMPORAL_METRICS_PORT: String(temporalPort),
      WEBHOOK_RETRY_DELAYS_MS: '200,400',
      RATE_LIMIT_PER_MINUTE: '10000',
    },
  });
  site = await startShopSite();
  rx = await startReceiver();
});
after(async () => {
  await rx?.close();
  await site?.close();
  await svc?.close();
});

type Labels = Record<string, string>;

/** The sum of `name`'s samples whose labels include `labels`. */
function sample(text: string, name: string, labels: Labels = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have: Labels = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      have[l[1] as string] = l[2] as string;
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

const scrapeApi = async (authorization = `Bearer ${TOKEN}`) =>
  svc.app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} });

async function scrapeUrl(url: string, authorization = `Bearer ${TOKEN}`) {
  const res = await fetch(url, { headers: authorization ? { authorization } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
const scrapeWorker = (authorization?: string) =>
  scrapeUrl(`http://127.0.0.1:${workerPort}/metrics`, authorization);

/** Polls the worker's scrape until `done` holds (a webhook attempt is counted just after its answer). */
async function workerUntil(done: (text: string) => boolean, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { text } = await scrapeWorker();
    if (done(text) || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const job = (id: string) =>
  svc.app.inject({ url: `/api/v1/jobs/${id}`, headers: svc.auth() }).then((r) => r.json());

const shopCrawl = { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1 };

async function until(what: string, done: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Prometheus metrics', () => {
  test("while a crawl runs: jobs running and the crawl's queue, from visibility and its projection", async () => {
    const slow = await startShopSite({ productDelayMs: 1500 });
    try {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/crawl',
        headers: svc.auth(),
        payload: { url: `${slow.url}/`, schema: { name: 'string' }, options: shopCrawl },
      });
      assert.equal(res.statusCode, 202, res.body);
      const jobId = res.json().job_id as string;
      // The API reads visibility at most every 10 s: scrape first once Temporal and the projection show it.
      // The gauge counts the whole namespace, which other test files share (a crawl of theirs may still run):
      // it must agree with Temporal's own count around the scrape.
      const running = async (type: string) =>
        (await svc.deps.temporal.workflow.count(`ExecutionStatus="Running" AND ExtractJobType="${type}"`))
          .count;
      await until('the crawl to be running with URLs queued', async () => {
        const view = await job(jobId);
        return (await running('crawl')) >= 1 && view.status === 'running' && view.urls_queued > 0;
      });
      const before = { crawl: await running('crawl'), extract: await running('extract') };
      const api = (await scrapeApi()).body;
      const after = { crawl: await running('crawl'), extract: await running('extract') };
      for (const type of ['crawl', 'extract'] as const) {
        const gauge = sample(api, 'extract_service_jobs_running', { job_type: type });
        const [low, high] = [Math.min(before[type], after[type]), Math.max(before[type], after[type])];
        assert.ok(
          gauge >= low && gauge <= high,
          `${type}: ${gauge} running, Temporal counts ${low}..${high}`,
        );
      }
      assert.ok(sample(api, 'extract_service_jobs_running', { job_type: 'crawl' }) >= 1);
      // Summed over the running crawls (this one's at most 12; another file's crawl may add its own).
      const queued = sample(api, 'extract_service_crawl_pages_queued');
      const largest = sample(api, 'extract_service_crawl_frontier_largest');
      assert.ok(queued > 0 && largest > 0 && largest <= queued, `${queued} queued, largest ${largest}`);
      if (before.crawl === 1 && after.crawl === 1) {
        assert.ok(queued <= 12, `${queued} queued`);
        assert.equal(largest, queued);
      }
      assert.equal((await waitForJobEnd(svc, jobId)).status, 'completed');
    } finally {
      await slow.close();
    }
  });

  test('an extract and a crawl move the counters by what the jobs report', async () => {
    const apiBefore = (await scrapeApi()).body;
    const workerBefore = (await scrapeWorker()).text;
    rx.answer('/hook', [500, 200]); // the first delivery attempt fails, every other succeeds
    const extract = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/product/1`,
        schema: { name: 'string', price: 'number' },
        webhook: { url: `${rx.url}/hook` },
      },
    });
    assert.equal(extract.statusCode, 200, extract.body);
    const crawl = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl?wait=true&timeout=60',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/`,
        schema: { name: 'string', price: 'number' },
        options: shopCrawl,
      },
    });
    assert.equal(crawl.statusCode, 200, crawl.body);
    assert.equal(crawl.json().status, 'completed');
    const extractJob = await job(extract.json().job_id);
    const crawlJob = await job(crawl.json().job_id);
    await rx.waitFor('/hook', 3); // job.started and job.completed, one of them twice

    const api = await scrapeApi();
    assert.equal(api.statusCode, 200);
    assert.match(String(api.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const created = (type: string) =>
      sample(api.body, 'extract_service_jobs_created_total', { job_type: type }) -
      sample(apiBefore, 'extract_service_jobs_created_total', { job_type: type });
    assert.equal(created('extract'), 1);
    assert.equal(created('crawl'), 1);
    assert.ok(api.body.includes('extract_service_jobs_running{job_type="crawl"}'), 'jobs running per type');

    const webhooksDone = (t: string) => sample(t, 'extract_service_webhook_deliveries_total') >= 3;
    const w = await workerUntil(webhooksDone);
    /** How much a series moved during this test (the first test's crawl counted before it). */
    const count = (name: string, labels: Labels = {}) =>
      sample(w, `extract_service_${name}`, labels) - sample(workerBefore, `extract_service_${name}`, labels);
    const now = (name: string, labels: Labels = {}) => sample(w, `extract_service_${name}`, labels);
    // Jobs: the worker records their start and end.
    for (const type of ['extract', 'crawl']) {
      assert.equal(count('jobs_started_total', { job_type: type }), 1, `${type} started`);
      assert.equal(count('jobs_completed_total', { job_type: type }), 1, `${type} completed`);
    }
    assert.equal(count('jobs_failed_total'), 0);
    assert.equal(count('job_duration_seconds_count', { status: 'completed' }), 2);
    // Pages: the extract's one, and the crawl's 10 completed, 1 failed (410), 1 skipped (robots.txt).
    const pages = (labels: Labels) => count('pages_total', labels);
    assert.equal(pages({ job_type: 'extract', outcome: 'completed', data_source: 'model' }), 1);
    assert.equal(pages({ job_type: 'crawl', outcome: 'completed' }), crawlJob.page_count);
    assert.equal(crawlJob.page_count, 10);
    assert.equal(pages({ job_type: 'crawl', outcome: 'failed', error_category: 'http_status' }), 1);
    assert.equal(pages({ job_type: 'crawl', outcome: 'skipped', error_category: 'robots_disallowed' }), 1);
    assert.equal(pages({ job_type: 'unknown' }), 0, 'every page knows its job type');
    assert.equal(count('crawl_urls_discovered_total'), 12, 'seed, page 2 and ten products');
    // Stages: a fetch and a clean per completed page; a model call per page a model answered.
    assert.equal(count('stage_duration_seconds_count', { stage: 'fetch' }), 11);
    assert.equal(count('stage_duration_seconds_count', { stage: 'clean' }), 11);
    const modelPages = count('model_pages_total', { provider: 'openai', model: 'gpt-4o-mini' });
    assert.equal(count('stage_duration_seconds_count', { stage: 'model' }), modelPages);
    assert.equal(modelPages, pages({ outcome: 'completed', data_source: 'model' }));
    assert.ok(count('stage_duration_seconds_count', { stage: 'record' }) >= 4);
    // Model tokens and cost: exactly what the two jobs report.
    const tokens = (direction: string) =>
      count('model_tokens_total', { provider: 'openai', model: 'gpt-4o-mini', direction });
    assert.equal(tokens('input'), extractJob.token_usage_input + crawlJob.token_usage_input);
    assert.equal(tokens('output'), extractJob.token_usage_output + crawlJob.token_usage_output);
    assert.ok(tokens('input') > 0);
    const cost = count('model_cost_usd_total', { provider: 'openai', key: 'operator' });
    assert.ok(Math.abs(cost - (extractJob.llm_cost_usd + crawlJob.llm_cost_usd)) < 1e-6, `${cost}`);
    // Activities: timed by type, none left running.
    // (An extract's page activities are being restructured: only the stable ones are named here.)
    assert.ok(count('activity_duration_seconds_count', { activity: 'recordEvents', outcome: 'ok' }) >= 4);
    assert.ok(count('activity_duration_seconds_count', { activity: 'crawlPage' }) >= 12);
    assert.equal(count('activity_duration_seconds_count', { activity: 'deliverWebhook', outcome: 'ok' }), 3);
    assert.equal(now('activities_running', { activity: 'crawlPage' }), 0);
    assert.equal(now('browser_pages_in_use'), 0);
    // Webhooks: attempt 1 of one event failed and was retried; three answers in all.
    assert.equal(count('webhook_deliveries_total', { outcome: 'retry', attempt: '1' }), 1);
    assert.equal(count('webhook_deliveries_total', { outcome: 'success', attempt: '1' }), 1);
    assert.equal(count('webhook_deliveries_total', { outcome: 'success', attempt: '2' }), 1);

    // Bounded labels: no URL, job id or tenant in either scrape.
    for (const text of [api.body, w]) {
      for (const secret of [
        site.url,
        rx.url,
        extract.json().job_id,
        crawl.json().job_id,
        svc.tenantId,
        svc.apiKey,
      ]) {
        assert.ok(!text.includes(secret), `no ${secret} in the metrics`);
      }
    }
  });

  test("the Temporal SDK's own metrics are served on TEMPORAL_METRICS_PORT", async () => {
    const temporal = await scrapeUrl(`http://127.0.0.1:${temporalPort}/metrics`, '');
    assert.equal(temporal.status, 200);
    // Names as the dashboard reads them: _total counters, durations in seconds, no unit suffix.
    for (const name of [
      'temporal_activity_execution_latency_count',
      'temporal_activity_schedule_to_start_latency_bucket',
      'temporal_workflow_task_schedule_to_start_latency_bucket',
      'temporal_worker_task_slots_available',
      'temporal_workflow_completed_total',
    ]) {
      assert.ok(temporal.text.includes(`${name}{`), `${name} in ${temporal.text.slice(0, 300)}`);
    }
  });

  test('every series the Grafana dashboard reads is served', async () => {
    const dashboard = await readFile(
      new URL('../../../docs/grafana/extract-service.json', import.meta.url),
      'utf8',
    );
    const exprs = (JSON.parse(dashboard).panels as { targets?: { expr: string }[] }[]).flatMap(
      (p) => p.targets?.map((t) => t.expr) ?? [],
    );
    const read = new Set(
      exprs.flatMap((e) => [...e.matchAll(/\b(?:extract_service|temporal)_\w+/g)].map((m) => m[0])),
    );
    const served = [
      (await scrapeApi()).body,
      (await scrapeWorker()).text,
      (await scrapeUrl(`http://127.0.0.1:${temporalPort}/metrics`, '')).text,
    ].join('\n');
    for (const name of read) {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      assert.ok(served.includes(`# TYPE ${base} `), `${name} (dashboard) is served`);
    }
    assert.ok(read.size >= 20);
  });

  test('a worker process (worker/main.ts) serves its metrics and the SDK metrics on the configured ports', async () => {
    const [ownPort, sdkPort] = [await freePort(), await freePort()];
    const child = spawnWorkerProcess(svc.config, {
      WORKER_METRICS_PORT: String(ownPort),
      TEMPORAL_METRICS_PORT: String(sdkPort),
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = `http://127.0.0.1:${ownPort}/metrics`;
      await until(
        'the worker process to serve /metrics',
        async () => {
          if (child.exitCode !== null) throw new Error(`worker exited ${child.exitCode}: ${stderr}`);
          return scrapeUrl(url).then(
            (r) => r.status === 200,
            () => false,
          );
        },
        60_000,
      );
      const own = await scrapeUrl(url);
      assert.ok(own.text.includes('# TYPE extract_service_activity_duration_seconds histogram'));
      assert.equal((await scrapeUrl(url, '')).status, 401);
      const sdk = await scrapeUrl(`http://127.0.0.1:${sdkPort}/metrics`, '');
      assert.equal(sdk.status, 200);
      assert.ok(sdk.text.includes('temporal_'));
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('METRICS_TOKEN: a scrape without it is refused, and it opens nothing under /api/v1', async () => {
    for (const authorization of ['', 'Bearer wrong', `Bearer ${svc.apiKey}`, TOKEN]) {
      const api = await scrapeApi(authorization);
      assert.equal(api.statusCode, 401, `API scrape with "${authorization}"`);
      assert.ok(!api.body.includes('extract_service_'));
      const worker = await scrapeWorker(authorization);
      assert.equal(worker.status, 401, `worker scrape with "${authorization}"`);
    }
    assert.equal((await scrapeWorker()).status, 200);
    const api = await svc.app.inject({ url: '/api/v1/jobs', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(api.statusCode, 401);
    const other = await scrapeUrl(`http://127.0.0.1:${workerPort}/api/v1/jobs`);
    assert.equal(other.status, 404);
  });
});

/** A page.completed the model answered, as a worker records it. */
function modelPage(jobId: string, seq: number, provider: string, model: string): JobEvent {
  const usage = {
    input_tokens: 100,
    output_tokens: 10,
    llm_cost_usd: 0.001,
    cost_usd: 0.001,
    is_byok: false,
  };
  return {
    type: 'page.completed',
    job_id: jobId,
    tenant_id: 'tenant-x',
    seq,
    event_id: `${jobId}-${seq}`,
    at: new Date().toISOString(),
    data: {
      page_id: `p${seq}`,
      url: 'https://shop.example/secret-path',
      final_url: 'https://shop.example/secret-path',
      depth: 0,
      parent_url: null,
      data: {},
      input_format: 'markdown',
      fetch_mode: 'static',
      fetched_at: new Date().toISOString(),
      fetch_duration_ms: 10,
      clean_duration_ms: 5,
      extract_duration_ms: 200,
      provider,
      model,
      fallback_position: 0,
      usage,
      price_known: true,
    },
  };
}

describe('bounded labels', () => {
  test('model names past the cap, odd names and unknown providers fold into "other"; no tenant by default', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const count = jobEventCounter(metrics, () => 'crawl');
    const events = Array.from({ length: MODEL_LABEL_LIMIT + 10 }, (_, i) =>
      modelPage('job_a', i, 'openai', `model-${i}`),
    );
    events.push(modelPage('job_a', 100, 'my-own-gateway', 'model-0'));
    events.push(modelPage('job_a', 101, 'openai', 'a model {with} "quotes"'));
    count(events, 5);
    const text = await metrics.registry.metrics();
    const models = new Set([...text.matchAll(/model="([^"]*)"/g)].map((m) => m[1]));
    assert.equal(models.size, MODEL_LABEL_LIMIT + 1, [...models].join(' '));
    assert.ok(models.has('other'));
    assert.equal(sample(text, 'extract_service_model_pages_total', { model: 'other' }), 11);
    assert.equal(sample(text, 'extract_service_model_pages_total', { provider: 'other' }), 1);
    assert.equal(sample(text, 'extract_service_pages_total', { job_type: 'crawl' }), events.length);
    assert.ok(!text.includes('tenant-x') && !text.includes('shop.example') && !text.includes('job_a'));
  });

  test('METRICS_TENANT_LABELS adds the tenant to job and page series only', async () => {
    const metrics = createMetrics({ tenantLabels: true, processMetrics: false });
    jobEventCounter(metrics)([modelPage('job_b', 0, 'openai', 'gpt-4o-mini')], 5);
    const text = await metrics.registry.metrics();
    assert.equal(sample(text, 'extract_service_pages_total', { tenant: 'tenant-x' }), 1);
    assert.ok(!/model_tokens_total\{[^}]*tenant=/.test(text), 'no tenant on model series');
  });

  test('an event written twice (a retried write) is counted once', async () => {
    const jobId = `job_${'0'.repeat(31)}1`;
    const failed: JobEvent = {
      type: 'page.failed',
      job_id: jobId,
      tenant_id: 'tenant-x',
      seq: 0,
      event_id: `${jobId}-0`,
      at: new Date().toISOString(),
      data: {
        page_id: 'p0',
        url: 'https://shop.example/',
        depth: 0,
        parent_url: null,
        error_category: 'fetch_timeout',
        error_message: 'timed out',
      },
    };
    const failures = async () =>
      sample((await scrapeApi()).body, 'extract_service_pages_total', { error_category: 'fetch_timeout' });
    const before = await failures();
    await svc.deps.events.append([failed]);
    await svc.deps.events.append([failed]);
    assert.equal((await failures()) - before, 1);
  });
});
