// Queued pages of a crawl without a per-domain delay run several at once, as one crawlPages activity:
// fewer activities than pages, each page recorded as a single page's would be; a page whose failure the
// retry policy would retry runs again alone without failing the others of its batch; a cancellation
// mid-batch records the batch's pages as skipped, each in its own seq.
// Jobs run on the real workflows (their batching and retry policy) with fake activities over a page table
// (test/support/fake-activities.ts): the real crawl-page pipeline and batch activity, no network or model SDK.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cancelAndWait, waitForJobEnd } from '../support/crawl-jobs.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { pageActivities } from '../support/history-shape.js';
import { startTestService, type TestService } from '../support/service.js';

const ITEMS = 12;
const SLOW_MS = 20_000;
/** /fast/3 fails the first time with a 503 (retried), /fast/5 answers 410 Gone (not retried). */
const FLAKY = '/fast/3';
const GONE = '/fast/5';
/** A page of /wide whose links are too many for its share of a batch's bound (see before()). */
const WIDE = '/wide/7';

let svc: TestService;
const site: PageTable = pageTable();
const fakes = fakeActivities({ pages: site.pages });
/** Requests of slow items started. */
let slowStarts = 0;
/** How often the site was asked for `path`. */
const hitsOf = (path: string) => fakes.requests.filter((u) => u === `${site.url}${path}`).length;

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '100000' }, activities: fakes });
  // /wide/7 links to 500 pages by URLs of ~400 characters: ~200 KB of links, over a page's share of a
  // batch's bound (128 KiB in a batch of four) and within a page's own (256 KiB).
  const longPath = (i: number) => `/far/${i}/${'x'.repeat(370)}`;
  const hub = Array.from({ length: 500 }, (_, i) => `<a class="item" href="${longPath(i)}">Far ${i}</a>`);
  site.route(WIDE, html('Hub', `<h1>Hub</h1><p>Price: 1</p>${hub.join(' ')}`));
  for (const kind of ['fast', 'slow', 'wide']) {
    const links = Array.from(
      { length: ITEMS },
      (_, i) => `<a class="item" href="/${kind}/${i}">Item ${i}</a>`,
    );
    site.route(`/${kind}`, html('Items', `<h1>Items</h1>${links.join(' ')}`));
  }
  const item = (i: number) =>
    html(`Item ${i}`, `<h1>Item ${i}</h1><p>Price: ${i + 1}</p><p>${'Good. '.repeat(30)}</p>`);
  let flakyTries = 0;
  for (let i = 0; i < ITEMS; i++) {
    if (`/wide/${i}` !== WIDE) site.route(`/wide/${i}`, item(i));
    site.route(`/fast/${i}`, async (url) => {
      if (url === `${site.url}${GONE}`) return { status: 410, body: '<h1>Gone</h1>' };
      if (url === `${site.url}${FLAKY}` && flakyTries++ === 0) return { status: 503, body: '<h1>Busy</h1>' };
      return item(i);
    });
    site.route(`/slow/${i}`, () => {
      slowStarts++;
      // Unref'd: a page of a cancelled batch must not keep the file's process alive.
      return new Promise((done) => setTimeout(() => done(item(i)), SLOW_MS).unref());
    });
  }
});
after(async () => {
  await svc?.close();
});

async function startCrawl(path: string, options: Record<string, unknown> = {}): Promise<string> {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl',
    headers: svc.auth(),
    payload: {
      url: `${site.url}${path}`,
      schema: { name: 'string', price: 'number' },
      // Pages that wait for their template's extractor to be learned would run a second time.
      learn_extractors: false,
      options: {
        follow_selector: 'a.item',
        max_depth: 1,
        concurrency: 8,
        respect_robots: false,
        ...options,
      },
    },
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().job_id as string;
}

const workflowOf = async (jobId: string) =>
  (await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() })).json().workflow_id as string;

test('a crawl runs its pages in batches; a retryable failure runs again alone, the batch unharmed', {
  timeout: 120_000,
}, async () => {
  const jobId = await startCrawl('/fast');
  const job = await waitForJobEnd(svc, jobId, 90_000);
  assert.equal(job.status, 'completed');
  const results = (
    await svc.app.inject({ url: `/api/v1/jobs/${jobId}/results`, headers: svc.auth() })
  ).json() as { url: string; status: string; error_category?: string }[];
  const statusOf = new Map(results.map((r) => [r.url.replace(site.url, ''), r.status]));
  assert.equal(results.length, ITEMS + 1, 'the listing and every item once');
  for (let i = 0; i < ITEMS; i++)
    assert.equal(statusOf.get(`/fast/${i}`), `/fast/${i}` === GONE ? 'failed' : 'completed', `item ${i}`);

  const runs = await pageActivities(svc, await workflowOf(jobId));
  const pages = runs.reduce((n, r) => n + r.urls.length, 0);
  assert.ok(runs.length < pages, `${runs.length} activities for ${pages} page runs`);
  assert.ok(
    runs.some((r) => r.activity === 'crawlPages' && r.urls.length > 1),
    'pages ran in batches',
  );
  // The flaky page failed in its batch, then ran alone; the others of its batch were not run again.
  const flaky = `${site.url}${FLAKY}`;
  const batch = runs.find((r) => r.activity === 'crawlPages' && r.urls.includes(flaky));
  assert.ok(batch, 'the flaky page first ran in a batch');
  const alone = runs.filter((r) => r.urls.includes(flaky));
  assert.deepEqual(
    alone.map((r) => r.activity),
    ['crawlPages', 'crawlPage'],
    'then once alone, under the retry policy',
  );
  for (const url of batch.urls.filter((u) => u !== flaky))
    assert.equal(runs.filter((r) => r.urls.includes(url)).length, 1, `${url} ran once`);
  // A failure no retry would change is recorded at once, as a single page's.
  assert.equal(hitsOf(GONE), 1, 'the 410 page was requested once');
  assert.equal(hitsOf(FLAKY), 2);
});

test('a page of a batch with links over its share of the batch bound runs again alone, once asked', {
  timeout: 120_000,
}, async () => {
  const modelCalls = fakes.asked.length;
  const jobId = await startCrawl('/wide', { max_depth: 2, max_pages: ITEMS + 1 });
  const job = await waitForJobEnd(svc, jobId, 90_000);
  assert.equal(job.status, 'completed');
  const wide = `${site.url}${WIDE}`;
  const runs = (await pageActivities(svc, await workflowOf(jobId))).filter((r) => r.urls.includes(wide));
  assert.deepEqual(
    runs.map((r) => r.activity),
    ['crawlPages', 'crawlPage'],
    'in a batch first, then alone with the whole bound',
  );
  const results = (
    await svc.app.inject({ url: `/api/v1/jobs/${jobId}/results`, headers: svc.auth() })
  ).json() as { url: string; status: string }[];
  assert.deepEqual(
    results.filter((r) => r.url === wide).map((r) => r.status),
    ['completed'],
  );
  // The batch run stopped before the model: the hub's page was asked about once.
  const aboutHub = fakes.asked.slice(modelCalls).filter((a) => a.body.includes('Far 499'));
  assert.equal(aboutHub.length, 1);
});

test('cancelling a crawl mid-batch records the batch pages as skipped, promptly', {
  timeout: 120_000,
}, async () => {
  // Concurrency 8 in a crawl of up to 240 pages: one batch of four slots holds all twelve items and runs four
  // of them at a time.
  const jobId = await startCrawl('/slow', { max_pages: 240 });
  for (let i = 0; i < 600 && slowStarts < 4; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(slowStarts, 4, "the batch's first four pages are at the site, the others wait their turn");
  await new Promise((r) => setTimeout(r, 1_000)); // heartbeats have told the batches' activities by now
  const cancelledAt = Date.now();
  const job = await cancelAndWait(svc, jobId);
  assert.equal(job.status, 'cancelled');
  assert.ok(Date.now() - cancelledAt < SLOW_MS / 2, 'the batches stopped without waiting for their pages');

  const events = await svc.deps.events.list(jobId, -1, 10_000);
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i),
    'every seq written once, none missing',
  );
  const skipped = events.filter(
    (e) =>
      e.type === 'page.skipped' && (e.data as { error_category?: string }).error_category === 'cancelled',
  );
  const batched = (await pageActivities(svc, await workflowOf(jobId))).filter(
    (r) => r.activity === 'crawlPages',
  );
  const inBatches = batched.flatMap((r) => r.urls).sort();
  assert.equal(inBatches.length, ITEMS);
  assert.equal(slowStarts, 4, 'no page of the cancelled batch started after its cancellation');
  assert.deepEqual(skipped.map((e) => (e.data as { url: string }).url).sort(), inBatches);
  assert.equal(events.at(-1)?.type, 'job.cancelled');
});
