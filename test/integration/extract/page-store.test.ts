// The page store: fetched pages are kept per tenant and reused — a crawl with max_age makes no
// request for pages fetched within it, a re-extract runs a new schema over a job's stored pages without
// fetching, a retry with refetch false re-runs a model failure from the stored page, another tenant never
// gets a tenant's page, and the retention sweep deletes expired pages while their jobs still answer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ContentStore } from '../../../shared/store/contents.js';
import { PAGE_COLLECTIONS } from '../../../shared/store/pages.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { html } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

let svc: TestService;
let site: ShopSite;

/** Each page's truth from its URL: product N has name "Product N", price 10·N and sku "SKU-N". */
function truth(userText: string): Record<string, unknown> {
  const url = /Page URL: (\S+)/.exec(userText)?.[1] ?? '';
  const id = /\/product\/(\d+)/.exec(url)?.[1] ?? '0';
  return { name: `Product ${id}`, price: Number(id) * 10, sku: `SKU-${id}` };
}

before(async () => {
  svc = await startTestService({ llm: { respond: ({ userText }) => truth(userText) } });
  site = await startShopSite();
  site.route('/single', html('Single', `<h1>Single</h1><p>Price: 5</p><p>${'Words here. '.repeat(30)}</p>`));
});
after(async () => {
  await site?.close();
  await svc?.close();
});

const CRAWL = {
  schema: { name: 'string', price: 'number' },
  // The listing and its products 1-5 (4 is disallowed by robots.txt): five pages, kept small for speed.
  options: { follow_selector: 'a.product', max_depth: 1, concurrency: 4 },
  structured_data: false,
  learn_extractors: false,
};

interface Result {
  id: string;
  url: string;
  status: string;
  data: Record<string, unknown> | null;
  error_category: string | null;
  from_cache?: boolean;
  fetched_at?: string;
}

async function crawl(extra: Record<string, unknown> = {}, key = svc.apiKey) {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl?wait=true&timeout=90',
    headers: svc.auth(key),
    payload: { url: `${site.url}/`, ...CRAWL, ...extra },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { job_id: string; data: Result[] };
}

async function results(jobId: string): Promise<Result[]> {
  const res = await svc.app.inject({ url: `/api/v1/jobs/${jobId}/results`, headers: svc.auth() });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Requests the fixture received since `from`, robots.txt aside. */
const pagesFetchedSince = (from: number) => site.hits.slice(from).filter((h) => h !== '/robots.txt');

let firstCrawl: { job_id: string; data: Result[] };

test('a second crawl with max_age takes the pages fetched within it from the store, not the site', {
  timeout: 180_000,
}, async () => {
  firstCrawl = await crawl();
  const completed = firstCrawl.data.filter((r) => r.status === 'completed');
  assert.equal(completed.length, 5, JSON.stringify(firstCrawl.data));
  assert.ok(
    completed.every((r) => r.from_cache === undefined),
    'a fetched page is not from the cache',
  );

  const hits = site.hits.length;
  const second = await crawl({ max_age: '2h' });
  assert.deepEqual(pagesFetchedSince(hits), [], 'no page is fetched again');
  const cached = second.data.filter((r) => r.status === 'completed');
  assert.equal(cached.length, completed.length);
  for (const r of cached) {
    assert.equal(r.from_cache, true, r.url);
    assert.ok(r.fetched_at && Date.parse(r.fetched_at) <= Date.now(), r.url);
  }
  assert.deepEqual(cached.map((r) => r.data).sort(byJson), completed.map((r) => r.data).sort(byJson));
});

test('a re-extract runs a new schema over the stored pages with no request to the site', {
  timeout: 180_000,
}, async () => {
  const hits = site.hits.length;
  const res = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${firstCrawl.job_id}/reextract`,
    headers: svc.auth(),
    payload: { schema: { name: 'string', price: 'number', sku: 'string' } },
  });
  assert.equal(res.statusCode, 202, res.body);
  assert.equal(res.json().reextract_of, firstCrawl.job_id);
  assert.equal(res.json().type, 'crawl');
  const job = await waitForJobEnd(svc, res.json().id, 120_000);
  assert.equal(job.status, 'completed');
  assert.equal(job.reextract_of, firstCrawl.job_id);
  assert.deepEqual(site.hits.slice(hits), [], 'no request at all reaches the site');

  const pages = await results(job.id);
  const before = firstCrawl.data.filter((r) => r.status !== 'skipped');
  assert.equal(pages.length, before.length, 'the same pages, and no link followed');
  for (const page of pages) {
    assert.equal(page.status, 'completed', page.url);
    assert.equal(page.from_cache, true);
    assert.ok(page.data && 'sku' in page.data, `${page.url} has the new field`);
  }
  assert.equal(pages.find((r) => r.url.endsWith('/product/3'))?.data?.sku, 'SKU-3');
});

test('retry with refetch false re-runs a model failure from the stored page, with no fetch', {
  timeout: 120_000,
}, async () => {
  svc.llm.enqueueFailure({ kind: '401', count: 20 });
  const failed = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}/single`, schema: { name: 'string', price: 'number' } },
  });
  svc.llm.reset();
  assert.ok(failed.statusCode >= 400, failed.body);
  const jobId = failed.json().job_id as string;
  assert.ok(jobId, failed.body);

  const hits = site.hits.length;
  const retry = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${jobId}/retry?refetch=false`,
    headers: svc.auth(),
  });
  assert.equal(retry.statusCode, 202, retry.body);
  const job = await waitForJobEnd(svc, retry.json().id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.deepEqual(site.hits.slice(hits), [], 'the page is not fetched again');
  const [page] = await results(job.id);
  assert.equal(page?.from_cache, true);
});

test("another tenant with max_age does not get a tenant's cached page", { timeout: 60_000 }, async () => {
  const other = await svc.newTenant('page-store-other');
  const extract = async (key: string) => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(key),
      payload: { url: `${site.url}/single`, schema: { name: 'string' }, max_age: 3600 },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const hits = site.hits.length;
  const mine = await extract(svc.apiKey);
  assert.equal(mine.metadata.from_cache, true, 'this tenant fetched /single within the hour');
  assert.deepEqual(pagesFetchedSince(hits), []);
  const theirs = await extract(other.apiKey);
  assert.equal(theirs.metadata.from_cache, false);
  assert.deepEqual(pagesFetchedSince(hits), ['/single'], 'the other tenant fetches the page itself');
});

test('the retention sweep deletes expired pages; their jobs still answer and a re-extract fails as expired', {
  timeout: 120_000,
}, async () => {
  const records = svc.mongo.db.collection(PAGE_COLLECTIONS.records);
  const bodies = svc.mongo.db.collection(PAGE_COLLECTIONS.bodies);
  const latest = svc.mongo.db.collection(PAGE_COLLECTIONS.latest);
  assert.ok((await records.countDocuments({})) > 0);
  // Everything stored so far is past a retention that ends tomorrow (the sweep as worker/retention.ts runs it).
  const contents = new ContentStore(svc.mongo.db);
  const cutoff = new Date(Date.now() + 2 * 86_400_000);
  let run = await contents.sweepExpired(cutoff, 10_000);
  while (!run.done) run = await contents.sweepExpired(cutoff, 10_000);
  assert.equal(await records.countDocuments({}), 0);
  assert.equal(await bodies.countDocuments({}), 0);
  assert.equal(await latest.countDocuments({}), 0);

  const kept = await results(firstCrawl.job_id);
  assert.deepEqual(kept.map((r) => r.data).sort(byJson), firstCrawl.data.map((r) => r.data).sort(byJson));
  const res = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${firstCrawl.job_id}/reextract`,
    headers: svc.auth(),
    payload: { schema: { sku: 'string' } },
  });
  assert.equal(res.statusCode, 202, res.body);
  const hits = site.hits.length;
  const job = await waitForJobEnd(svc, res.json().id, 120_000);
  assert.equal(job.status, 'failed');
  assert.equal(job.error_category, 'content_expired');
  assert.ok((await results(job.id)).every((r) => r.error_category === 'content_expired'));
  assert.deepEqual(site.hits.slice(hits), []);
});

test('reextract and retry bodies are validated; another tenant cannot re-extract a job', async () => {
  const other = await svc.newTenant('page-store-foreign');
  const foreign = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${firstCrawl.job_id}/reextract`,
    headers: svc.auth(other.apiKey),
    payload: { schema: { sku: 'string' } },
  });
  assert.equal(foreign.statusCode, 404, foreign.body);
  const noSchema = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${firstCrawl.job_id}/reextract`,
    headers: svc.auth(),
    payload: {},
  });
  assert.equal(noSchema.statusCode, 422, noSchema.body);
  const badAge = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}/single`, schema: { name: 'string' }, max_age: '2 weeks' },
  });
  assert.equal(badAge.statusCode, 422, badAge.body);
});

function byJson(a: unknown, b: unknown) {
  return JSON.stringify(a).localeCompare(JSON.stringify(b));
}
