// Structured data first: pages whose JSON-LD, microdata or OpenGraph answers the schema cost no
// model call; partly answered pages ask the model for the rest only; the visible page wins over JSON-LD. Jobs run
// on the real workflows with fake activities (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { waitForJobEnd } from '../support/crawl-jobs.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();
const fakes = fakeActivities({ pages: site.pages });

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const page = (head: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>${head}</head><body>${body}</body></html>`;
const product = (name: string, price: string, extra: object = {}) =>
  ld({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'WebSite', name: 'Acme Shop' },
      {
        '@type': 'Product',
        name,
        sku: 'SKU-1',
        offers: { '@type': 'Offer', price, priceCurrency: 'USD' },
        ...extra,
      },
    ],
  });

before(async () => {
  svc = await startTestService({ activities: fakes });
  site.route(
    '/ld',
    page(
      product('Blue Kettle', '24.50'),
      '<main><h1>Blue Kettle</h1><p>Price: $24.50</p><p>SKU-1</p></main>',
    ),
  );
  site.route(
    '/ld-partial',
    page(
      product('Green Kettle', '30.00'),
      '<main><h1>Green Kettle</h1><p>Price: $30.00</p><p>Colour: Green</p></main>',
    ),
  );
  site.route(
    '/ld-conflict',
    page(product('Red Kettle', '19.99'), '<main><h1>Red Kettle</h1><p>Price: 24.50</p></main>'),
  );
  site.route(
    '/microdata',
    page(
      '',
      '<main><div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Oak Table</h1>' +
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">Price: ' +
        '<span itemprop="price" content="120.00">$120.00</span></div></div></main>',
    ),
  );
  site.route(
    '/og',
    page(
      '<meta property="og:title" content="Desk Lamp"><meta property="product:price:amount" content="15">',
      '<main><h1>Desk Lamp</h1><p>Price: 15 USD</p></main>',
    ),
  );
  site.route(
    '/catalogue',
    page(
      '',
      `<main><h1>Catalogue</h1>${[1, 2, 3].map((i) => `<a class="product" href="/item/${i}">Item ${i}</a>`).join(' ')}</main>`,
    ),
  );
  for (const i of [1, 2, 3])
    site.route(
      `/item/${i}`,
      page(product(`Item ${i}`, `${i}0.00`), `<main><h1>Item ${i}</h1><p>Price: $${i}0.00</p></main>`),
    );
});
after(async () => {
  await svc?.close();
});
beforeEach(() => {
  fakes.asked.length = 0;
});

const extract = async (path: string, schema: object | string, extra: object = {}) => {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}${path}`, schema, ...extra },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
const getJob = (id: string) =>
  svc.app.inject({ url: `/api/v1/jobs/${id}`, headers: svc.auth() }).then((r) => r.json());
/** The properties of the output schema each model request asked for. */
const askedFields = () =>
  fakes.asked.map((a) => Object.keys((a.schema.properties as object | undefined) ?? {}));

describe('structured data first', () => {
  test('complete JSON-LD answers the page with no model call and 0 tokens', async () => {
    const body = await extract('/ld', { name: 'string', price: 'number', currency: 'string', sku: 'string' });
    assert.deepEqual(body.data, { name: 'Blue Kettle', price: 24.5, currency: 'USD', sku: 'SKU-1' });
    assert.equal(fakes.asked.length, 0);
    assert.deepEqual(body.usage, {
      input_tokens: 0,
      output_tokens: 0,
      llm_cost_usd: 0,
      cost_usd: 0,
      is_byok: false,
    });
    assert.equal(body.metadata.data_source, 'structured_data');
    assert.deepEqual(body.metadata.structured_fields, ['name', 'price', 'currency', 'sku']);
    assert.equal(body.metadata.provider, '');
    const job = await getJob(body.job_id);
    assert.deepEqual(job.pages_by_source, { structured_data: 1, learned_extractor: 0, model: 0, mixed: 0 });
    assert.equal(job.token_usage_input, 0);
  });

  test('JSON-LD answers 2 of 3 fields: the model is asked for the missing one only, answers merge', async () => {
    const body = await extract('/ld-partial', { name: 'string', price: 'number', colour: 'string' });
    assert.deepEqual(body.data, { name: 'Green Kettle', price: 30, colour: 'Green' });
    assert.deepEqual(askedFields(), [['colour']]);
    assert.equal(body.metadata.data_source, 'mixed');
    assert.deepEqual(body.metadata.structured_fields, ['name', 'price']);
    assert.ok(body.usage.input_tokens > 0, 'the model call is counted');
    assert.deepEqual((await getJob(body.job_id)).pages_by_source, {
      structured_data: 0,
      learned_extractor: 0,
      model: 0,
      mixed: 1,
    });
  });

  test('provenance: structured values name their JSON-LD path, model values whether the page shows them', async () => {
    const body = await extract(
      '/ld-partial',
      { name: 'string', price: 'number', colour: 'string' },
      { capture_debug: true },
    );
    assert.deepEqual(body.metadata.provenance.name, {
      source: 'structured_data',
      path: 'json-ld Product name',
    });
    assert.equal(body.metadata.provenance.price.path, 'json-ld Product offers.price');
    assert.equal(body.metadata.provenance.colour.source, 'model');
    assert.equal(body.metadata.provenance.colour.in_page, true);
    assert.equal(typeof body.metadata.provenance.colour.offset, 'number');
    // The same provenance in the debug capture the model chain writes: test/integration/api/llm.
    const job = await getJob(body.job_id);
    assert.deepEqual(job.values_by_source, {
      structured_data: 2,
      learned_extractor: 0,
      model: 1,
      model_not_in_page: 0,
    });
  });

  test('JSON-LD disagreeing with the visible page: the visible value (from the model) wins', async () => {
    const body = await extract('/ld-conflict', { name: 'string', price: 'number' });
    assert.deepEqual(body.data, { name: 'Red Kettle', price: 24.5 });
    assert.deepEqual(askedFields(), [['price']]);
    assert.deepEqual(body.metadata.structured_fields, ['name']);
  });

  test('microdata and OpenGraph pages', async () => {
    const micro = await extract('/microdata', { name: 'string', price: 'number' });
    assert.deepEqual(micro.data, { name: 'Oak Table', price: 120 });
    assert.equal(micro.metadata.data_source, 'structured_data');
    const og = await extract('/og', { title: 'string', price: 'number' });
    assert.deepEqual(og.data, { title: 'Desk Lamp', price: 15 });
    assert.equal(og.metadata.data_source, 'structured_data');
    assert.equal(fakes.asked.length, 0);
  });

  test('structured_data: false sends the page to the model as before', async () => {
    const body = await extract('/ld', { name: 'string', price: 'number' }, { structured_data: false });
    assert.deepEqual(body.data, { name: 'Blue Kettle', price: 24.5 });
    assert.deepEqual(askedFields(), [['name', 'price']]);
    assert.equal(body.metadata.data_source, 'model');
    assert.deepEqual(body.metadata.structured_fields, []);
    assert.ok(body.usage.input_tokens > 0);
  });

  test('a prompt schema always goes to the model', async () => {
    const body = await extract('/ld', 'the product name and its price');
    assert.equal(fakes.asked.length, 1);
    assert.equal(body.metadata.data_source, 'model');
  });

  test('a crawl answers its product pages from JSON-LD and counts them', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/catalogue`,
        schema: { name: 'string', price: 'number' },
        options: { follow_selector: 'a.product', max_depth: 1, respect_robots: false },
      },
    });
    assert.equal(res.statusCode, 202, res.body);
    const jobId = res.json().job_id as string;
    await waitForJobEnd(svc, jobId, 60_000);
    const job = await getJob(jobId);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.page_count, 4);
    assert.deepEqual(job.pages_by_source, { structured_data: 3, learned_extractor: 0, model: 1, mixed: 0 });
    assert.equal(fakes.asked.length, 1, 'only the catalogue page reached the model');
    const results = await svc.app
      .inject({ url: `/api/v1/jobs/${jobId}/results`, headers: svc.auth() })
      .then((r) => r.json() as { url: string; data: unknown }[]);
    for (const i of [1, 2, 3])
      assert.deepEqual(results.find((r) => r.url.endsWith(`/item/${i}`))?.data, {
        name: `Item ${i}`,
        price: i * 10,
      });
  });
});
