// POST /jobs/{id}/retry re-runs only the failed pages of a crawl, with the same options, as a new job
// linked to the original.
// Jobs run on the real workflows with fake activities over the shop's page table (test/support/shop-table.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventKey } from '../../shared/store/event-store.js';
import { COLLECTIONS } from '../../shared/store/mongo.js';
import { waitForJobEnd } from '../support/crawl-jobs.js';
import { fakeActivities, type PageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';
import { shopTable } from '../support/shop-table.js';

let svc: TestService;
const site: PageTable = shopTable();
const fakes = fakeActivities({ pages: site.pages });

before(async () => {
  svc = await startTestService({ activities: fakes });
});
after(async () => {
  await svc?.close();
});

test('retry re-processes only the failed pages; the original keeps its history', {
  timeout: 120_000,
}, async () => {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl?wait=true&timeout=60',
    headers: svc.auth(),
    payload: {
      url: `${site.url}/`,
      schema: { name: 'string', price: 'number' },
      options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1 },
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  const original = res.json();
  assert.equal(original.data.filter((r: { status: string }) => r.status === 'failed').length, 1);
  const eventsBefore = (await svc.deps.events.list(original.job_id)).length;

  // The failing product is fixed; a retry should fetch it, and only it.
  site.route(
    '/product/7',
    html('Product 7', '<h1>Product 7</h1><p>Price: 70</p><p>' + 'Back in stock. '.repeat(20) + '</p>'),
  );
  const hitsBefore = fakes.requests.length;
  const retry = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${original.job_id}/retry`,
    headers: svc.auth(),
  });
  assert.equal(retry.statusCode, 202, retry.body);
  assert.equal(retry.json().retry_of, original.job_id);
  const job = await waitForJobEnd(svc, retry.json().id);
  assert.equal(job.status, 'completed');
  assert.equal(job.page_count, 1);
  const results = (
    await svc.app.inject({ url: `/api/v1/jobs/${job.id}/results`, headers: svc.auth() })
  ).json();
  assert.deepEqual(
    results.map((r: { url: string; status: string; data: { price: number } }) => [
      r.url,
      r.status,
      r.data.price,
    ]),
    [[`${site.url}/product/7`, 'completed', 70]],
  );
  const fetched = fakes.requests.slice(hitsBefore).map((url) => new URL(url).pathname);
  assert.deepEqual(fetched, ['/product/7'], 'only the failed page is fetched again');
  assert.equal(
    (await svc.deps.events.list(original.job_id)).length,
    eventsBefore,
    'the original is untouched',
  );

  const again = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${job.id}/retry`,
    headers: svc.auth(),
  });
  assert.equal(again.statusCode, 409, 'nothing failed in the retry');
});

test('a job recorded before job specs (its request without a kind, nulls for unset fields) still retries', {
  timeout: 120_000,
}, async () => {
  site.route('/gone-then-back', { status: 410, body: 'gone' });
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl?wait=true&timeout=60',
    headers: svc.auth(),
    payload: { url: `${site.url}/gone-then-back`, schema: { name: 'string' }, options: { max_depth: 0 } },
  });
  assert.equal(res.statusCode, 200, res.body);
  const original = res.json();
  // job.created as it was stored before: the workflow input without its ids, no kind.
  const events = svc.deps.db.collection<{ _id: string; data: { request: Record<string, unknown> } }>(
    COLLECTIONS.events,
  );
  const _id = eventKey(original.job_id, 0);
  const created = await events.findOne({ _id });
  const { kind, ...request } = created?.data.request ?? {};
  assert.equal(kind, 'crawl');
  await events.updateOne({ _id }, { $set: { 'data.request': { ...request, llm: null } } });

  site.route('/gone-then-back', html('Back', `<h1>Back</h1><p>${'Here again. '.repeat(20)}</p>`));
  const retry = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${original.job_id}/retry`,
    headers: svc.auth(),
  });
  assert.equal(retry.statusCode, 202, retry.body);
  const job = await waitForJobEnd(svc, retry.json().id);
  assert.equal(job.status, 'completed');
  assert.equal(job.page_count, 1);
});
