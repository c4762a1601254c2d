// Worker faults against the real stack (worker processes, Temporal dev server, FerretDB): a graceful stop
// mid-crawl fails no page, two workers share a crawl's pages, and a crawl whose worker is killed is finished
// by the other worker with every page once.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { startShopCrawlUnderway, waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { pageActivities } from '../../support/history-shape.js';
import {
  spawnWorkerProcess,
  startTestService,
  type TestService,
  waitForActivityPollers,
} from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

let svc: TestService;
let shop: ShopSite;
let wide: FixtureSite;
const WIDE_PAGES = 40;

before(async () => {
  svc = await startTestService({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  shop = await startShopSite({ productDelayMs: 1_500 });
  // A listing of 40 pages that each take 300 ms to serve: enough work to share between workers.
  wide = await startFixtureSite();
  const links = Array.from(
    { length: WIDE_PAGES },
    (_, i) => `<a class="item" href="/item/${i}">Item ${i}</a>`,
  );
  wide.route('/', html('Items', `<h1>Items</h1>${links.join(' ')}`));
  for (let i = 0; i < WIDE_PAGES; i++) {
    wide.route(`/item/${i}`, (_req, res) => {
      setTimeout(() => {
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(html(`Item ${i}`, `<h1>Item ${i}</h1><p>Price: ${i + 1}</p><p>${'Good. '.repeat(30)}</p>`));
      }, 300);
    });
  }
});
after(async () => {
  await wide?.close();
  await shop?.close();
  await svc?.close();
});

async function stop(worker: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((r) => worker.once('exit', r));
  worker.kill(signal);
  await exited;
}

interface PageRow {
  url: string;
  status: string;
}

async function resultsOf(jobId: string): Promise<PageRow[]> {
  const res = await svc.app.inject({ url: `/api/v1/jobs/${jobId}/results`, headers: svc.auth() });
  return res.json() as PageRow[];
}

/** The undisturbed outcome of the shop crawl: 10 products, of which 8 extract (one 410, one robots-denied). */
async function assertShopComplete(jobId: string) {
  const job = await waitForJobEnd(svc, jobId, 180_000);
  assert.equal(job.status, 'completed');
  const results = await resultsOf(jobId);
  const urls = results.map((r) => r.url);
  assert.equal(new Set(urls).size, urls.length, 'every page once in the results');
  const products = results.filter((r) => r.url.includes('/product/'));
  assert.equal(products.length, 10, urls.join(' '));
  assert.deepEqual(
    products
      .filter((r) => r.status !== 'completed')
      .map((r) => `${r.url.replace(shop.url, '')} ${r.status}`)
      .sort(),
    ['/product/4 skipped', '/product/7 failed'],
    'only the pages that fail undisturbed are not completed',
  );
}

/** Which worker process (Temporal identity) started each attempt of the crawl's pages (pages, not activities). */
async function pageRunners(jobId: string): Promise<Map<string, number>> {
  const job = (await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() })).json();
  const runners = new Map<string, number>();
  for (const run of await pageActivities(svc, job.workflow_id)) {
    if (!run.startedBy) continue;
    runners.set(run.startedBy, (runners.get(run.startedBy) ?? 0) + run.urls.length);
  }
  return runners;
}

test('a graceful stop mid-crawl fails no page: what was cancelled runs again', {
  timeout: 240_000,
}, async () => {
  // No grace: every page in flight is cancelled by the stop, the hardest case for a graceful stop.
  const first = spawnWorkerProcess(svc.config, { WORKER_SHUTDOWN_GRACE_MS: '0' });
  const jobId = await startShopCrawlUnderway(svc, shop);
  await stop(first, 'SIGTERM');
  const second = spawnWorkerProcess(svc.config);
  try {
    await assertShopComplete(jobId);
  } finally {
    await stop(second, 'SIGTERM');
  }
});

test('with the default grace a stopping worker finishes the pages it holds', {
  timeout: 240_000,
}, async () => {
  const first = spawnWorkerProcess(svc.config);
  const started = shop.productStarts.length;
  const jobId = await startShopCrawlUnderway(svc, shop, started + 3);
  // Results first: a page that ends between the two reads is then not counted twice.
  const before = (await resultsOf(jobId)).length;
  const inFlight = shop.inFlight.now;
  assert.ok(inFlight > 0, 'pages were in flight when the stop came');
  await stop(first, 'SIGTERM');
  // Nothing else ran while it stopped: what it finished during its grace is recorded.
  assert.ok((await resultsOf(jobId)).length >= before + inFlight, 'the pages in flight were finished');
  const second = spawnWorkerProcess(svc.config);
  try {
    await assertShopComplete(jobId);
  } finally {
    await stop(second, 'SIGTERM');
  }
});

async function startWideCrawl(): Promise<string> {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl',
    headers: svc.auth(),
    payload: {
      url: `${wide.url}/`,
      schema: { name: 'string', price: 'number' },
      options: { follow_selector: 'a.item', max_depth: 1, concurrency: 8, max_pages: 100 },
    },
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().job_id as string;
}

async function assertWideComplete(jobId: string) {
  const job = await waitForJobEnd(svc, jobId, 180_000);
  assert.equal(job.status, 'completed');
  const results = await resultsOf(jobId);
  const items = results.filter((r) => r.url.includes('/item/'));
  assert.equal(new Set(items.map((r) => r.url)).size, WIDE_PAGES);
  assert.equal(items.length, WIDE_PAGES, 'every page once');
  assert.equal(items.filter((r) => r.status === 'completed').length, WIDE_PAGES);
}

test('two workers each run a fair share of one crawl', { timeout: 240_000 }, async () => {
  const workers = [spawnWorkerProcess(svc.config), spawnWorkerProcess(svc.config)];
  try {
    // Both polling before the crawl starts: under load one process can be up seconds before the other.
    await waitForActivityPollers(svc, workers);
    const jobId = await startWideCrawl();
    await assertWideComplete(jobId);
    const runners = [...(await pageRunners(jobId)).values()];
    const total = runners.reduce((a, b) => a + b, 0);
    assert.equal(runners.length, 2, `both workers ran pages: ${runners.join(', ')}`);
    for (const n of runners)
      assert.ok(n >= total * 0.25, `each worker ran at least a quarter: ${runners.join(', ')}`);
  } finally {
    for (const w of workers) await stop(w, 'SIGTERM');
  }
});

test('when one of two workers is killed the other finishes its pages', { timeout: 240_000 }, async () => {
  const [doomed, survivor] = [spawnWorkerProcess(svc.config), spawnWorkerProcess(svc.config)];
  try {
    await waitForActivityPollers(svc, [doomed, survivor]);
    const jobId = await startWideCrawl();
    // Kill it once pages are under way on both.
    for (let i = 0; i < 300 && wide.hits.length < 12; i++) await new Promise((r) => setTimeout(r, 50));
    await stop(doomed, 'SIGKILL');
    await assertWideComplete(jobId);
    assert.equal(survivor.exitCode, null, 'the survivor is still running');
  } finally {
    await stop(doomed, 'SIGKILL');
    await stop(survivor, 'SIGTERM');
  }
});

test('a stopping worker does not wait for a model that is not answering', { timeout: 240_000 }, async () => {
  const first = spawnWorkerProcess(svc.config, { WORKER_SHUTDOWN_GRACE_MS: '0' });
  svc.llm.enqueueFailure({ kind: 'timeout', count: 1 }); // the first model request hangs (LLM_TIMEOUT_MS is 60 s)
  const asked = svc.llm.requests.length;
  const answer = svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${wide.url}/item/3`, schema: { name: 'string', price: 'number' } },
  });
  for (let i = 0; i < 1200 && svc.llm.requests.length === asked; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.ok(svc.llm.requests.length > asked, 'the model was asked');
  const stopping = Date.now();
  await stop(first, 'SIGTERM');
  const stopMs = Date.now() - stopping;
  assert.ok(stopMs < 20_000, `the worker stopped in ${stopMs} ms, not after the model's 60 s timeout`);
  const second = spawnWorkerProcess(svc.config);
  try {
    const res = await answer;
    const jobId = res.json().job_id as string;
    const job = await waitForJobEnd(svc, jobId, 120_000);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const [page] = await resultsOf(jobId);
    assert.equal(page?.status, 'completed');
  } finally {
    await stop(second, 'SIGTERM');
  }
});
