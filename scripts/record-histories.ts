// Re-records the workflow histories CI replays (test/replay/histories): runs a fixed set of jobs on a
// private stack with the fake model and saves each workflow run's history. Run after a deliberate,
// versioned workflow change:  npm run --silent record-histories [extract|analyze|map|crawl|deferred|cancelled|cancelled-start|webhook|page-store|batches]...
// (no names: all of them; `batches`: crawls whose pages ran several at once). Every workflow type the worker
// runs has histories here; re-record them all when a patch is retired (README, "How the code changes").

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { startContinueAsNewCrawl } from '../test/support/crawl-jobs.js';
import { startTestService } from '../test/support/service.js';
import { type ShopSite, startShopSite } from '../test/support/shop-site.js';
import { startReceiver } from '../test/webhooks/receiver.js';

const OUT = 'test/replay/histories';
// The webhook tests' shortened schedule: attempts 2 and 3 after 300 and 600 ms. A tenant's share of the
// worker's 40 activity slots is 2, so the crawl of four pages at once has pages deferred (the others run
// at most two at once and are not affected).
const svc = await startTestService({ env: { WEBHOOK_RETRY_DELAYS_MS: '300,600', TENANT_MAX_SHARE: '0.05' } });
const site: ShopSite = await startShopSite();
mkdirSync(OUT, { recursive: true });

async function save(name: string, workflowId: string, runId?: string) {
  const history = await svc.deps.temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  const file = join(OUT, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history as never)), null, 1)}\n`);
  process.stderr.write(`saved ${file}\n`);
}

async function post(url: string, payload: object) {
  const res = await svc.app.inject({ method: 'POST', url, headers: svc.auth(), payload });
  return res.json() as { job_id: string };
}

async function recordExtracts() {
  const ok = await post('/api/v1/extract', {
    url: `${site.url}/product/1`,
    schema: { name: 'string', price: 'number' },
  });
  await save('extract-page-completed', `extract-${ok.job_id}`);
  const gone = await post('/api/v1/extract', { url: `${site.url}/product/7`, schema: { name: 'string' } });
  await save('extract-page-failed-http-status', `extract-${gone.job_id}`);
}

// A crawl through the API, and one forced to continue as new (history_limit): every run is saved.
async function recordCrawls() {
  const crawl = await post('/api/v1/crawl?wait=true&timeout=120', {
    url: `${site.url}/`,
    schema: { name: 'string', price: 'number' },
    options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1, concurrency: 2 },
  });
  await save('crawl-completed', `crawl-${crawl.job_id}`);

  const { workflowId, handle } = await startContinueAsNewCrawl(svc, site, 40);
  await handle.result();
  const runs: string[] = [];
  for await (const wf of svc.deps.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push(wf.runId);
  runs.reverse(); // oldest first
  for (const [i, runId] of runs.entries()) await save(`crawl-continue-as-new-run${i + 1}`, workflowId, runId);
}

// A crawl of concurrency 4 (batches of two slots) over its tenant's share of two: a batch finding no slot
// free is deferred whole, its pages retried on timers.
async function recordDeferredCrawl() {
  const crawl = await post('/api/v1/crawl?wait=true&timeout=120', {
    url: `${site.url}/`,
    schema: { name: 'string', price: 'number' },
    options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1, concurrency: 4 },
  });
  const workflowId = `crawl-${crawl.job_id}`;
  const history = await svc.deps.temporal.workflow.getHandle(workflowId).fetchHistory();
  const timers = (history.events ?? []).filter((e) => e.timerStartedEventAttributes).length;
  if (timers === 0) throw new Error('no page of the crawl was deferred');
  await save('crawl-tenant-share-deferred', workflowId);
}

// A crawl cancelled while two product pages are at a slow site: the pages in flight end as skipped.
async function recordCancelledCrawl() {
  const slow = await startShopSite({ productDelayMs: 3_000 });
  const crawl = await post('/api/v1/crawl', {
    url: `${slow.url}/`,
    schema: { name: 'string', price: 'number' },
    options: { follow_selector: 'a.product', max_depth: 1, concurrency: 2 },
  });
  while (slow.productStarts.length < 2) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1_000)); // heartbeats have told the pages' activities by now
  await cancelAndSave(crawl.job_id, 'crawl-cancelled-mid-page');
  await slow.close();
}

// A crawl cancelled the moment it was accepted, while it records its start.
async function recordCrawlCancelledAtStart() {
  const crawl = await post('/api/v1/crawl', {
    url: `${site.url}/`,
    schema: { name: 'string', price: 'number' },
    options: { follow_selector: 'a.product', max_depth: 1, concurrency: 2 },
  });
  await cancelAndSave(crawl.job_id, 'crawl-cancelled-at-start');
}

// Pages several at once (crawlPages, concurrency 6: batches of three slots holding nine pages): robots.txt's
// skip, a 410 failure, a 503 once (run again alone), and the tenant's share of two running a batch two pages
// at a time.
async function recordBatchedCrawl() {
  const flakySite = await startShopSite();
  let tries = 0;
  flakySite.route('/product/9', (_req, res) => {
    if (tries++ === 0) return void res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Busy</h1>');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Product 9</title><h1>Product 9</h1><p>Price: 90</p>');
  });
  const crawl = await post('/api/v1/crawl?wait=true&timeout=120', {
    url: `${flakySite.url}/`,
    schema: { name: 'string', price: 'number' },
    options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1, concurrency: 6 },
  });
  const workflowId = `crawl-${crawl.job_id}`;
  const history = await svc.deps.temporal.workflow.getHandle(workflowId).fetchHistory();
  const types = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
  if (!types.includes('crawlPages') || tries < 2)
    throw new Error('no batch, or the flaky page not run again');
  await save('crawl-batches-completed', workflowId);
  await flakySite.close();

  const slow = await startShopSite({ productDelayMs: 3_000 });
  const cancelled = await post('/api/v1/crawl', {
    url: `${slow.url}/`,
    schema: { name: 'string', price: 'number' },
    options: { follow_selector: 'a.product', max_depth: 1, concurrency: 6 },
  });
  while (slow.productStarts.length < 2) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1_000)); // heartbeats have told the batch's activity by now
  await cancelAndSave(cancelled.job_id, 'crawl-batches-cancelled-mid-batch');
  await slow.close();
}

/** Cancels a crawl through the API, waits for its workflow to end and saves its history once it is cancelled. */
async function cancelAndSave(jobId: string, name: string) {
  await svc.app.inject({ method: 'POST', url: `/api/v1/jobs/${jobId}/cancel`, headers: svc.auth() });
  const workflowId = `crawl-${jobId}`;
  await svc.deps.temporal.workflow
    .getHandle(workflowId)
    .result()
    .catch(() => undefined);
  const job = await svc.deps.events.project(jobId);
  if (job?.status !== 'cancelled') throw new Error(`the cancelled crawl is ${job?.status}`);
  await save(name, workflowId);
}

// An extract with a webhook whose receiver fails twice: the job (which starts the delivery as a child) and
// the delivery workflow, with its two retry timers and three attempts.
async function recordWebhookDelivery() {
  const rx = await startReceiver();
  rx.answer('/flaky', [500, 503, 200]);
  const job = await post('/api/v1/extract', {
    url: `${site.url}/product/1`,
    schema: { name: 'string', price: 'number' },
    webhook: { url: `${rx.url}/flaky`, secret: 'record-histories-secret', events: ['job.completed'] },
  });
  const delivery = `webhook-${job.job_id}-job.completed-0-0`;
  const result = await svc.deps.temporal.workflow.getHandle(delivery).result();
  if (result.attempts !== 3 || result.outcome !== 'success')
    throw new Error(`expected a success on the third attempt, got ${JSON.stringify(result)}`);
  await save('extract-page-with-webhook', `extract-${job.job_id}`);
  await save('webhook-delivery-retried', delivery);
  await rx.close();
}

// An analysis one level deep in auto mode: static and rendered fetches, linked pages, two model steps.
async function recordAnalyze() {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/analyze',
    headers: svc.auth(),
    payload: { url: `${site.url}/`, depth: 1 },
  });
  if (res.statusCode !== 200) throw new Error(`analyze answered ${res.statusCode}: ${res.body}`);
  await save('analyze-page-depth1', `analyze-${res.json().job_id}`);
}

// A map of the shop: no sitemap (/sitemap.xml answers 404), the home page's links and a level below.
async function recordMap() {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/map',
    headers: svc.auth(),
    payload: { url: `${site.url}/`, limit: 20 },
  });
  if (res.statusCode !== 200) throw new Error(`map answered ${res.statusCode}: ${res.body}`);
  await save('map-completed', `map-${res.json().job_id}`);
}

// Pages from the page store: an extract and a crawl with max_age, and their re-extracts.
async function recordPageStore() {
  const schema = { name: 'string', price: 'number' };
  const extract = await post('/api/v1/extract', { url: `${site.url}/product/2`, schema, max_age: '1h' });
  await save('extract-page-max-age', `extract-${extract.job_id}`);
  const options = { follow_selector: 'a.product', max_depth: 1, max_pages: 4, concurrency: 2 };
  const crawl = await post('/api/v1/crawl?wait=true&timeout=120', {
    url: `${site.url}/`,
    schema,
    options,
    max_age: '1h',
  });
  await save('crawl-max-age', `crawl-${crawl.job_id}`);
  for (const [name, jobId, type] of [
    ['extract-page-reextract', extract.job_id, 'extract'],
    ['crawl-reextract', crawl.job_id, 'crawl'],
  ] as const) {
    const res = await svc.app.inject({
      method: 'POST',
      url: `/api/v1/jobs/${jobId}/reextract`,
      headers: svc.auth(),
      payload: { schema: { ...schema, sku: 'string' } },
    });
    if (res.statusCode !== 202) throw new Error(`reextract answered ${res.statusCode}: ${res.body}`);
    const id = res.json().id as string;
    await svc.deps.temporal.workflow.getHandle(`${type}-${id}`).result();
    await save(name, `${type}-${id}`);
  }
}

const recorders: Record<string, () => Promise<void>> = {
  extract: recordExtracts,
  analyze: recordAnalyze,
  map: recordMap,
  crawl: recordCrawls,
  deferred: recordDeferredCrawl,
  cancelled: recordCancelledCrawl,
  'cancelled-start': recordCrawlCancelledAtStart,
  webhook: recordWebhookDelivery,
  'page-store': recordPageStore,
  batches: recordBatchedCrawl,
};
const names = process.argv.slice(2);
for (const name of names.length > 0 ? names : Object.keys(recorders)) {
  const record = recorders[name];
  if (!record) throw new Error(`unknown set "${name}" (${Object.keys(recorders).join(', ')})`);
  await record();
}

await site.close();
await svc.close();
process.exit(0);
