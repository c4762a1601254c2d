// The production topology under faults (npm run test:cluster; not part of npm test): on the cluster of
// scripts/cluster/ (PostgreSQL, the real Temporal server, FerretDB on PostgreSQL, two workers, two APIs
// behind one address), a 300-page crawl and a stream of waited extracts run while one worker is SIGKILLed,
// one API process is SIGKILLed, the Temporal server is restarted and PostgreSQL is restarted. Afterwards:
// the crawl has every page exactly once, every extract answered or is found by its Idempotency-Key, no job
// is left pending, and no webhook delivery id arrived twice. The figures go to stderr (docs/production.md).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type GeneratedSite, startGeneratedSite } from '../../bench/generated-site.js';
import { type Cluster, startCluster } from '../../scripts/cluster/cluster.js';
import { loadConfig } from '../../shared/config.js';
import { connectMongo } from '../../shared/store/mongo.js';
import { TenantStore } from '../../shared/store/tenants.js';
import { type FakeLlmServer, startFakeLlmServer } from '../support/fake-llm-server.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';

const PAGES = 300;
const FINAL = ['completed', 'failed', 'cancelled'];
const dataDir = mkdtempSync(join(tmpdir(), 'extract-cluster-test-'));
let cluster: Cluster;
let site: GeneratedSite;
let llm: FakeLlmServer;
let rx: Receiver;
let apiKey: string;
const say = (msg: string) => process.stderr.write(`[cluster-test] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  llm = await startFakeLlmServer();
  site = await startGeneratedSite({ pages: PAGES });
  rx = await startReceiver();
  cluster = await startCluster({
    dataDir,
    quiet: true,
    log: say,
    env: {
      OPENAI_API_KEY: 'sk-test-operator',
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-test-operator',
      ANTHROPIC_BASE_URL: llm.anthropicBaseUrl,
      ALLOW_PRIVATE_ADDRESSES: 'true', // the site, the model and the receiver are on loopback
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'error',
      OTEL_SDK_DISABLED: 'true',
      JOB_SWEEP_INTERVAL_MS: '5000',
      JOB_START_GRACE_MS: '10000',
    },
  });
  const config = loadConfig({ MONGODB_URI: cluster.mongoUri });
  const mongo = await connectMongo(cluster.mongoUri, config.MONGODB_DB);
  try {
    const tenants = new TenantStore(mongo.db);
    const tenant = await tenants.ensureTenant('cluster-test');
    apiKey = (await tenants.createKey(tenant._id, 'cluster test')).key;
  } finally {
    await mongo.close();
  }
});

after(async () => {
  await cluster?.stop();
  await Promise.all([site?.close(), llm?.close(), rx?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** One call through the balancer; a refused or dropped connection is an answer of status 0. */
async function call(method: string, path: string, body?: object, headers: Record<string, string> = {}) {
  try {
    const res = await fetch(`${cluster.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    return {
      status: res.status,
      json: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text,
    };
  } catch {
    return { status: 0, json: null };
  }
}

/** POSTs until an answer that is not the topology's own failure (0, 502, 503, 504 from the balancer). */
async function postWithKey(path: string, body: object, key: string) {
  for (let attempt = 1; ; attempt++) {
    const res = await call('POST', path, body, { 'idempotency-key': key });
    if (![0, 502, 503].includes(res.status) || attempt >= 60) return { ...res, attempts: attempt };
    await sleep(1000);
  }
}

async function jobState(jobId: string) {
  const res = await call('GET', `/api/v1/jobs/${jobId}`);
  return res.status === 200 ? (res.json as { status: string; page_count: number }) : null;
}

async function waitFinal(jobId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await jobState(jobId);
    if (job && FINAL.includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job?.status ?? 'unreadable'}`);
    await sleep(1000);
  }
}

interface ExtractRecord {
  key: string;
  status: number;
  jobId?: string;
  attempts: number;
}

test('a crawl and waited extracts survive a killed worker, a killed API, Temporal and PostgreSQL restarts', {
  timeout: 40 * 60_000,
}, async () => {
  const crawlKey = randomUUID();
  const crawl = await postWithKey(
    '/api/v1/crawl',
    {
      url: `${site.url}/list/1`,
      schema: { title: 'string', price: 'number' },
      webhook: { url: `${rx.url}/crawl` },
      options: {
        follow_selector: 'a.item',
        next_selector: 'a.next',
        max_pages: PAGES,
        max_depth: 1,
        concurrency: 6,
      },
    },
    crawlKey,
  );
  assert.equal(crawl.status, 202, JSON.stringify(crawl.json));
  const crawlId = (crawl.json as { job_id: string }).job_id;

  // The stream of waited extracts: two at a time, each with its own key, retried with it on the
  // topology's own failures, until the faults are over.
  const extracts: ExtractRecord[] = [];
  let streaming = true;
  let n = 0;
  const stream = async () => {
    while (streaming) {
      const key = randomUUID();
      const item = (n++ % PAGES) + 1;
      const res = await postWithKey(
        '/api/v1/extract',
        {
          url: `${site.url}/item/${item}`,
          schema: { title: 'string', price: 'number' },
          webhook: { url: `${rx.url}/extract` },
        },
        key,
      );
      extracts.push({
        key,
        status: res.status,
        jobId: (res.json as { job_id?: string } | null)?.job_id,
        attempts: res.attempts,
      });
      if (res.status !== 200) await sleep(500);
    }
  };
  const streams = [stream(), stream()];

  /** Waits until a new extract answers 200 after `since`: the service answers again; returns the ms. */
  const recovered = async (since: number) => {
    for (;;) {
      const res = await call('POST', '/api/v1/extract', {
        url: `${site.url}/item/1`,
        schema: { title: 'string' },
      });
      if (res.status === 200) return Date.now() - since;
      await sleep(500);
    }
  };
  const untilPages = async (pages: number) => {
    for (;;) {
      const job = await jobState(crawlId);
      if (job && (job.page_count >= pages || FINAL.includes(job.status))) return job;
      await sleep(500);
    }
  };

  /** Waits until the crawl has more than `pages` pages after `since`; returns the ms. */
  const crawlMoves = async (since: number, pages: number) => {
    for (;;) {
      const job = await jobState(crawlId);
      if (job && (job.page_count > pages || FINAL.includes(job.status))) return Date.now() - since;
      await sleep(250);
    }
  };
  const figures: Record<string, number> = {};
  const crawlStarted = Date.now();
  const faultAt: Record<string, number> = {};
  let pages = (await untilPages(40)).page_count;
  say('fault: SIGKILL worker-1');
  let at = Date.now();
  let previous = cluster.current('worker-1');
  assert.ok(previous);
  faultAt.worker = at;
  cluster.kill('worker-1', 'SIGKILL');
  [figures.worker_kill_ms, figures.worker_kill_crawl_ms] = await Promise.all([
    recovered(at),
    crawlMoves(at, pages),
  ]);
  await cluster.waitRestarted('worker-1', previous);

  pages = (await untilPages(100)).page_count;
  say('fault: SIGKILL api-1');
  at = Date.now();
  previous = cluster.current('api-1');
  assert.ok(previous);
  faultAt.api = at;
  cluster.kill('api-1', 'SIGKILL');
  [figures.api_kill_ms, figures.api_kill_crawl_ms] = await Promise.all([
    recovered(at),
    crawlMoves(at, pages),
  ]);
  await cluster.waitRestarted('api-1', previous);

  pages = (await untilPages(160)).page_count;
  say('fault: restart the Temporal server');
  at = Date.now();
  previous = cluster.current('temporal');
  assert.ok(previous);
  faultAt.temporal = at;
  cluster.kill('temporal', 'SIGTERM');
  await cluster.waitRestarted('temporal', previous);
  [figures.temporal_restart_ms, figures.temporal_restart_crawl_ms] = await Promise.all([
    recovered(at),
    crawlMoves(at, pages),
  ]);

  pages = (await untilPages(220)).page_count;
  say('fault: restart PostgreSQL');
  at = Date.now();
  previous = cluster.current('postgres');
  assert.ok(previous);
  faultAt.postgres = at;
  cluster.kill('postgres', 'SIGINT');
  await cluster.waitRestarted('postgres', previous);
  [figures.postgres_restart_ms, figures.postgres_restart_crawl_ms] = await Promise.all([
    recovered(at),
    crawlMoves(at, pages),
  ]);

  streaming = false;
  await Promise.all(streams);
  const crawlEnd = await waitFinal(crawlId, 15 * 60_000);
  assert.equal(crawlEnd.status, 'completed');
  figures.crawl_s = Math.round((Date.now() - crawlStarted) / 1000);

  // Every page exactly once.
  const results = await call('GET', `/api/v1/jobs/${crawlId}/results`);
  assert.equal(results.status, 200);
  const urls = (results.json as { url: string }[]).map((r) => r.url);
  figures.crawl_pages = urls.length;
  figures.crawl_duplicate_pages = urls.length - new Set(urls).size;
  assert.equal(figures.crawl_duplicate_pages, 0, 'a page twice in the results');
  assert.equal(urls.length, PAGES);

  // Every extract answered, or is found by its key (a retry with it names the same job), and ended.
  figures.extracts = extracts.length;
  figures.extracts_answered_200 = extracts.filter((e) => e.status === 200).length;
  figures.extracts_retried = extracts.filter((e) => e.attempts > 1).length;
  for (const e of extracts)
    figures[`extract_status_${e.status}`] = (figures[`extract_status_${e.status}`] ?? 0) + 1;
  for (const e of extracts.filter((x) => x.status !== 200)) {
    const again = await postWithKey(
      '/api/v1/extract',
      { url: `${site.url}/item/1`, schema: { title: 'string', price: 'number' } },
      e.key,
    );
    const jobId = (again.json as { job_id?: string } | null)?.job_id;
    assert.ok(
      jobId,
      `extract ${e.key} (first answer ${e.status}) not found by its key: ${JSON.stringify(again.json)}`,
    );
    if (e.jobId) assert.equal(jobId, e.jobId);
    e.jobId = jobId;
  }
  const pending: string[] = [];
  for (const e of extracts) {
    const job = e.jobId ? await waitFinal(e.jobId, 5 * 60_000).catch(() => null) : null;
    if (!job) pending.push(e.key);
  }
  assert.deepEqual(pending, [], 'extracts still pending');
  // No job of the tenant (crawl, extracts, recovery probes) is left pending or running.
  const unfinished = async () => {
    const left: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await call('GET', `/api/v1/jobs?limit=100&offset=${offset}`);
      assert.equal(page.status, 200);
      const jobs = (page.json as { jobs: { id: string; status: string }[] }).jobs;
      for (const job of jobs) if (!FINAL.includes(job.status)) left.push(`${job.id} ${job.status}`);
      if (jobs.length < 100) return left;
    }
  };
  let left = await unfinished();
  // The recovery probes were sent without a key: one cut off by a fault is started by the sweeper.
  for (
    const deadline = Date.now() + 180_000;
    left.length > 0 && Date.now() < deadline;
    left = await unfinished()
  )
    await sleep(2000);
  figures.jobs_left_unfinished = left.length;
  assert.deepEqual(left, [], 'jobs left unfinished');

  // Webhooks: no delivery id arrived twice (the receiver always answers 200), and no job's end was
  // announced under two delivery ids.
  await sleep(5000);
  const ids = rx.received.map((r) => r.headers['x-service-delivery']);
  assert.ok(
    ids.every((id) => typeof id === 'string' && id.length > 0),
    'a delivery without its id',
  );
  figures.webhooks_received = ids.length;
  figures.webhook_duplicate_ids = ids.length - new Set(ids).size;
  const ends = rx.received
    .map((r) => JSON.parse(r.body) as { event: string; job_id: string })
    .filter((b) => b.event === 'job.completed' || b.event === 'job.failed')
    .map((b) => b.job_id);
  figures.webhook_job_ends_twice = ends.length - new Set(ends).size;
  say(`figures ${JSON.stringify(figures)}`);
  const twice = rx.received
    .filter((r, i) => ids.indexOf(r.headers['x-service-delivery']) !== i)
    .map(
      (r) => `${r.path} ${r.headers['x-service-event']} at +${Math.round((r.at - crawlStarted) / 1000)} s`,
    );
  const faults = Object.entries(faultAt).map(
    ([name, t]) => `${name} +${Math.round((t - crawlStarted) / 1000)} s`,
  );
  assert.equal(
    figures.webhook_duplicate_ids,
    0,
    `delivery ids arrived twice: ${twice.join('; ')} (faults: ${faults.join(', ')})`,
  );
  assert.equal(figures.webhook_job_ends_twice, 0, "a job's end was delivered twice");
  assert.equal(rx.on('/crawl').filter((r) => r.body.includes('"job.completed"')).length, 1);

  // Every process is a scrape target with its series: the APIs count jobs created, the workers jobs
  // completed and the Temporal SDK's task slots, the server its own.
  const expected: Record<string, string[]> = {
    api: ['extract_service_jobs_created_total'],
    worker: ['extract_service_jobs_completed_total', 'temporal_worker_task_slots_available'],
    temporal: ['persistence_requests'],
  };
  // A restarted worker's SDK series appear once it has polled: each target gets a minute.
  for (const [name, url] of Object.entries(cluster.metricsTargets)) {
    const want = expected[name.replace(/-\d+$/, '')] ?? [];
    let missing = want;
    for (const deadline = Date.now() + 60_000; missing.length > 0 && Date.now() < deadline; ) {
      const text = await (await fetch(url)).text();
      missing = want.filter((series) => !text.includes(series));
      if (missing.length > 0) await sleep(2000);
    }
    assert.deepEqual(missing, [], `${name} (${url}) lacks series`);
  }
});
