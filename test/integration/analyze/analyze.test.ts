// POST /api/v1/analyze end to end: the real worker (static fetch and Chromium), the fake model server and a
// local site with one page of each kind (test/support/analyze-site.ts), whose contents the counts are checked
// against.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { load } from 'cheerio';
import { findLoadMore } from '../../../activities/reading/page-structure/load-more.js';
import { ANALYZE_COUNTS, startAnalyzeSite } from '../../support/analyze-site.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;
let site: FixtureSite;

before(async () => {
  svc = await startTestService();
  site = await startAnalyzeSite();
});
// Answers a failed test left queued must not answer the next test's calls.
afterEach(() => svc?.llm.reset());
after(async () => {
  await site?.close();
  await svc?.close();
});

interface Analysis {
  job_id: string;
  page_type: string;
  recommended_fetch_mode: string;
  site_summary: string;
  suggested_schema: string;
  sample_data: unknown;
  schema_source: 'model' | 'model_retry' | 'page_structure';
  schema_note: string;
  sample_links: string[];
  detected_elements: { name: string; type: string; description: string; count: number }[];
  follow_patterns: { pattern: string; description: string; sample_urls: string[] }[];
  load_more?: {
    kind: string;
    selector: string;
    description: string;
    actions: Record<string, unknown>[];
  } | null;
}

const post = (body: unknown, headers: Record<string, string> = {}, key?: string) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/analyze',
    headers: { ...svc.auth(key), ...headers },
    payload: body as object,
  });

const analyze = async (path: string, extra: Record<string, unknown> = {}): Promise<Analysis> => {
  const res = await post({ url: `${site.url}${path}`, ...extra });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

/** The model requests an analysis makes from now on, as text (the prompt and the page content). */
function modelRequests(): () => string[] {
  const from = svc.llm.requests.length;
  return () => svc.llm.requests.slice(from).map((r) => JSON.stringify(r.body));
}
const isAnalysisCall = (text: string) => text.includes('Facts measured by parsing the page');

/** The job's usage is the sum of every model call's, as the debug captures recorded them. */
async function assertUsageCountsEveryCall(jobId: string, calls: number): Promise<void> {
  const job = (await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() })).json();
  const report = (
    await svc.app.inject({ url: `/api/v1/jobs/${jobId}/debug-capture`, headers: svc.auth() })
  ).json();
  const captures: { response: { input_tokens: number; output_tokens: number } }[] = report.captures;
  assert.equal(captures.length, calls);
  const sum = (k: 'input_tokens' | 'output_tokens') => captures.reduce((n, c) => n + c.response[k], 0);
  assert.equal(job.token_usage_input, sum('input_tokens'));
  assert.equal(job.token_usage_output, sum('output_tokens'));
}

const KETTLES = [
  { kettle_name: 'Kettle model 1', price: 11.5 },
  { kettle_name: 'Kettle model 2', price: 13 },
];
const suggestion = (fields: string[]) => ({
  page_type: 'listing',
  site_summary: 'A kitchen shop selling kettles.',
  schema_name: 'Kettle',
  fields: fields.map((name) => ({ name, type: name === 'price' ? 'number' : 'string' })),
});

const counted = (a: Analysis, type: string) => a.detected_elements.find((e) => e.type === type)?.count ?? 0;

function assertPatternsMatchSamples(a: Analysis): void {
  for (const p of a.follow_patterns) {
    assert.ok(p.sample_urls.length > 0, `${p.pattern} has samples`);
    for (const url of p.sample_urls) assert.match(url, new RegExp(p.pattern), `${url} matches ${p.pattern}`);
  }
}

/** The suggested schema is accepted by /extract as is and extracts from the page. */
async function assertSchemaExtracts(a: Analysis, path: string): Promise<void> {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}${path}`, schema: a.suggested_schema },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().input_format, 'structured');
}

// Six kettles in the page; each click on "Load more" adds six more; after the third click the button is gone.
const kettle = (n: number) =>
  `<li class="kettle"><a href="/product/${n}">Loaded kettle ${n} </a> <span>$${10 + n}.00</span></li>`;
const LOAD_MORE_LISTING = html(
  'More kettles',
  `<h1>Kettles</h1><ul class="kettles">${[1, 2, 3, 4, 5, 6].map(kettle).join('')}</ul>
  <button id="load-more" class="btn">Load more</button><script>
    let shown = 6, clicks = 0;
    const add = () => { for (let i = 0; i < 6; i++) { shown++;
      const li = document.createElement('li'); li.className = 'kettle';
      li.innerHTML = '<a href="/product/' + shown + '">Loaded kettle ' + shown + ' </a> <span>$' + (10 + shown) + '.00</span>';
      document.querySelector('ul.kettles').appendChild(li);
    } };
    document.getElementById('load-more').addEventListener('click', () => setTimeout(() => {
      add(); if (++clicks === 3) document.getElementById('load-more').remove();
    }, 50));
  </script>`,
);

describe('POST /api/v1/analyze', () => {
  test('a listing: items, pagination and counts as on the page, the detail-link pattern, a usable schema', async () => {
    const a = await analyze('/products');
    const want = ANALYZE_COUNTS.listing;
    assert.equal(a.page_type, 'listing');
    assert.equal(a.recommended_fetch_mode, 'static');
    assert.equal(counted(a, 'repeated_item'), want.items);
    assert.equal(counted(a, 'pagination'), want.pagination);
    assert.equal(counted(a, 'heading'), want.headings);
    assert.equal(counted(a, 'image'), want.images);
    assert.equal(counted(a, 'price'), want.prices);
    assert.equal(counted(a, 'form'), want.forms);
    assert.equal(counted(a, 'navigation'), want.navigation);
    assert.match(
      a.detected_elements.find((e) => e.type === 'repeated_item')?.description ?? '',
      /li\.product-card/,
    );
    assertPatternsMatchSamples(a);
    const detail = a.follow_patterns.find((p) => new RegExp(p.pattern).test(`${site.url}/product/99`));
    assert.ok(detail, 'a pattern covers the product links');
    assert.equal(detail.sample_urls.length, 5);
    const paging = a.follow_patterns.find((p) => new RegExp(p.pattern).test(`${site.url}/products?page=7`));
    assert.match(paging?.description ?? '', /pagination/);
    for (const link of a.sample_links) assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.ok(a.site_summary.length > 0);
    assert.match(a.suggested_schema, /name: items/);
    // The fake model reads no items off a listing: asked again it suggests the same schema, so the schema of
    // the page's structure is kept, its sample read by its selectors.
    assert.equal(a.schema_source, 'page_structure');
    const items = (a.sample_data as { items: { title: string; url: string; price: number }[] }).items;
    assert.equal(items.length, want.items);
    assert.deepEqual(items[0], {
      title: 'Kettle model 1',
      url: `${site.url}/product/1`,
      price: 11.5,
      brand: 'Acme',
      image_url: `${site.url}/img/1.jpg`,
    });
    assert.match(a.schema_note, /suggested the same schema/);
    await assertSchemaExtracts(a, '/products');

    // The job: type analyze, usage and cost of every model call, the analysis as its one result.
    const job = (await svc.app.inject({ url: `/api/v1/jobs/${a.job_id}`, headers: svc.auth() })).json();
    assert.equal(job.type, 'analyze');
    assert.equal(job.status, 'completed');
    assert.equal(job.workflow_id, `analyze-${a.job_id}`);
    assert.ok(job.token_usage_input > 0 && job.cost_usd > 0);
    const results = (
      await svc.app.inject({ url: `/api/v1/jobs/${a.job_id}/results`, headers: svc.auth() })
    ).json();
    assert.equal(results.length, 1);
    assert.equal(results[0].data.page_type, 'listing');
    assert.deepEqual(results[0].data.follow_patterns, a.follow_patterns);
    const events = await svc.deps.events.list(a.job_id);
    assert.deepEqual(
      events.map((e) => [e.seq, e.type]),
      [
        [0, 'job.created'],
        [1, 'job.started'],
        [2, 'page.completed'],
        [3, 'job.completed'],
      ],
    );
    const report = (
      await svc.app.inject({ url: `/api/v1/jobs/${a.job_id}/debug-capture`, headers: svc.auth() })
    ).json();
    assert.equal(
      report.total_requests,
      3,
      'the analysis, the sample that came out empty, the analysis again',
    );
    assert.match(report.captures[0].request.page_content, /Facts measured by parsing the page/);
    assert.match(report.captures[2].request.page_content, /Your previous suggestion did not work/);
    await assertUsageCountsEveryCall(a.job_id, 3);
  });

  test('a product page: one price, its forms, a flat schema that /extract accepts', async () => {
    const a = await analyze('/product/3');
    const want = ANALYZE_COUNTS.product;
    assert.equal(a.page_type, 'product');
    assert.equal(a.recommended_fetch_mode, 'static');
    assert.equal(counted(a, 'price'), want.prices);
    assert.equal(counted(a, 'form'), want.forms);
    assert.equal(counted(a, 'heading'), want.headings);
    assert.equal(counted(a, 'image'), want.images);
    assert.equal(counted(a, 'repeated_item'), 0);
    assertPatternsMatchSamples(a);
    assert.match(a.suggested_schema, /name: price/);
    assert.equal((a.sample_data as { title?: string }).title, 'Kettle model 3');
    await assertSchemaExtracts(a, '/product/3');
  });

  test('an article: headings, a date, text blocks', async () => {
    const a = await analyze('/blog/quiet-kettles');
    const want = ANALYZE_COUNTS.article;
    assert.equal(a.page_type, 'article');
    assert.equal(a.recommended_fetch_mode, 'static');
    assert.equal(counted(a, 'heading'), want.headings);
    assert.equal(counted(a, 'date'), want.dates);
    assert.equal(counted(a, 'text_block'), want.textBlocks);
    await assertSchemaExtracts(a, '/blog/quiet-kettles');
  });

  test('a page rendered by its script: dynamic is recommended and the rendered items are analysed', async () => {
    const a = await analyze('/app');
    assert.equal(a.recommended_fetch_mode, 'dynamic');
    assert.equal(counted(a, 'repeated_item'), ANALYZE_COUNTS.app.items);
    assertPatternsMatchSamples(a);
  });

  test('an explicit static fetch_mode is respected', async () => {
    const a = await analyze('/products', { fetch_mode: 'static' });
    assert.equal(a.recommended_fetch_mode, 'static');
    assert.equal(counted(a, 'repeated_item'), ANALYZE_COUNTS.listing.items);
    assert.equal(a.load_more, null, 'a paginated listing has no load-more finding');
  });

  test('a "Load more" listing: the click action is suggested, and copied into /extract it shows every item', async () => {
    site.route('/more-kettles', LOAD_MORE_LISTING);
    const a = await analyze('/more-kettles', { fetch_mode: 'static' });
    assert.equal(a.load_more?.kind, 'load_more_button', JSON.stringify(a.load_more));
    assert.equal(a.load_more?.selector, '#load-more');
    const [click] = a.load_more?.actions ?? [];
    assert.deepEqual(
      [click?.kind, click?.selector, click?.repeat, click?.item_selector],
      ['click', '#load-more', true, 'ul.kettles > li.kettle'],
    );
    svc.llm.reset();
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/more-kettles`,
        schema: { names: 'string[]' },
        actions: a.load_more?.actions,
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const sent = JSON.stringify(svc.llm.requests.map((r) => r.body));
    for (const n of [1, 6, 7, 24]) assert.ok(sent.includes(`Loaded kettle ${n} `), `kettle ${n} not sent`);
    assert.equal(res.json().metadata.actions[0].clicks, 3);
    assert.equal(res.json().metadata.actions[0].items, 24);
  });

  test('infinite-scroll signs suggest scrolling until no new content, bounded by the items', () => {
    const page = load(
      '<ul class="feed"><li class="post">A</li></ul><div class="infinite-scroll-sentinel"></div>',
    );
    const found = findLoadMore(page, 'ul.feed > li.post');
    assert.equal(found?.kind, 'infinite_scroll');
    assert.deepEqual(found?.actions[0], {
      kind: 'scroll',
      to: 'bottom',
      until_no_new_content: true,
      max_scrolls: 20,
      wait_after_ms: 1500,
      item_selector: 'ul.feed > li.post',
      max_items: 500,
    });
    assert.equal(findLoadMore(load('<a href="/page/2" class="next">Next</a>'), null), null);
  });

  test('depth 1 samples linked pages and names the pattern that leads to detail pages', async () => {
    const a = await analyze('/products', { depth: 1 });
    const detail = a.follow_patterns.find((p) => new RegExp(p.pattern).test(`${site.url}/product/99`));
    assert.match(detail?.description ?? '', /leads to detail pages/);
    const hits = site.hits.filter((h) => h.startsWith('/product/'));
    assert.ok(hits.length >= 1, 'linked product pages were fetched');
  });

  test("the model's page type, summary and fields are used when valid and they yield items: one suggestion call", async () => {
    const requests = modelRequests();
    svc.llm.enqueueAnswer({
      page_type: 'search_results',
      site_summary: 'A kitchen shop selling kettles.',
      schema_name: 'Kettle',
      fields: [
        { name: 'Kettle name', type: 'string', description: 'the name' },
        { name: 'price', type: 'float', description: 'the price' },
      ],
    });
    svc.llm.enqueueAnswer({ items: KETTLES });
    const a = await analyze('/products');
    assert.equal(a.page_type, 'search_results');
    assert.equal(a.site_summary, 'A kitchen shop selling kettles.');
    assert.match(a.suggested_schema, /^name: kettle$/m);
    assert.match(a.suggested_schema, /name: kettle_name/);
    assert.match(a.suggested_schema, /name: items/);
    assert.equal(a.schema_source, 'model');
    assert.deepEqual(a.sample_data, { items: KETTLES });
    assert.match(a.schema_note, /2 items extracted/);
    assert.equal(requests().length, 2);
    assert.equal(requests().filter(isAnalysisCall).length, 1, 'one suggestion call');
    await assertUsageCountsEveryCall(a.job_id, 2);
    await assertSchemaExtracts(a, '/products');
  });

  test('fields that match nothing on a listing: the model is asked again with what went wrong, its new schema kept', async () => {
    const requests = modelRequests();
    svc.llm.enqueueAnswer(suggestion(['isbn', 'publisher']));
    svc.llm.enqueueAnswer({ items: [] });
    svc.llm.enqueueAnswer(suggestion(['kettle_name', 'price']));
    svc.llm.enqueueAnswer({ items: KETTLES });
    const a = await analyze('/products');
    assert.equal(a.schema_source, 'model_retry');
    assert.match(a.suggested_schema, /name: kettle_name/);
    assert.doesNotMatch(a.suggested_schema, /isbn/);
    assert.deepEqual(a.sample_data, { items: KETTLES });
    assert.match(a.schema_note, /0 items .*isbn, publisher came out empty.*asked again/);
    const sent = requests();
    assert.equal(sent.length, 4);
    const retry = sent[2] ?? '';
    assert.ok(isAnalysisCall(retry), 'the third call is the analysis again');
    assert.match(retry, /Your previous suggestion did not work on this page/);
    assert.match(retry, /extracted 0 items/);
    assert.match(retry, /came out empty: isbn, publisher/);
    assert.match(retry, /12 repeated items matching `ul\.products > li\.product-card`/);
    assert.match(retry, /- price: the item's price/, 'the parts the structure measured');
    await assertUsageCountsEveryCall(a.job_id, 4);
    await assertSchemaExtracts(a, '/products');
  });

  test("both schemas yield nothing: the page structure's schema is kept, its sample read off the page", async () => {
    const requests = modelRequests();
    svc.llm.enqueueAnswer(suggestion(['isbn', 'publisher']));
    svc.llm.enqueueAnswer({ items: [] });
    svc.llm.enqueueAnswer(suggestion(['author', 'page_count']));
    svc.llm.enqueueAnswer({ items: [{ author: null, page_count: null }] });
    const a = await analyze('/products');
    assert.equal(a.schema_source, 'page_structure');
    assert.doesNotMatch(a.suggested_schema, /isbn|author/);
    assert.match(a.suggested_schema, /^name: kettle$/m, "the model's record name is kept");
    for (const field of ['title', 'url', 'price', 'image_url'])
      assert.match(a.suggested_schema, new RegExp(`name: ${field}`));
    const items = (a.sample_data as { items: { title: string; price: number }[] }).items;
    assert.equal(items.length, ANALYZE_COUNTS.listing.items);
    assert.deepEqual(
      items.slice(0, 2).map((i) => [i.title, i.price]),
      [
        ['Kettle model 1', 11.5],
        ['Kettle model 2', 13],
      ],
    );
    assert.match(a.schema_note, /second schema extracted nothing either/);
    assert.match(a.schema_note, /built from the page's structure \(12 items matching/);
    assert.equal(requests().length, 4, 'no model call for the structure sample');
    await assertUsageCountsEveryCall(a.job_id, 4);
    await assertSchemaExtracts(a, '/products');
  });

  test('a detail page whose fields come out empty: asked again, the fields that have values are kept', async () => {
    const requests = modelRequests();
    // The fake model reads "isbn" nowhere on a product page; asked again it answers the structure's fields.
    svc.llm.enqueueAnswer({ page_type: 'product', fields: [{ name: 'isbn', type: 'string' }] });
    const a = await analyze('/product/3');
    assert.equal(a.schema_source, 'model_retry');
    assert.doesNotMatch(a.suggested_schema, /isbn/);
    assert.equal((a.sample_data as { title?: string }).title, 'Kettle model 3');
    assert.match(a.schema_note, /no value from this page \(isbn came out empty\)/);
    const retry = requests()[2] ?? '';
    assert.match(retry, /extracted no value for any field/);
    assert.match(retry, /one item, titled/);
    await assertUsageCountsEveryCall(a.job_id, 4);
  });

  test('a model failure fails the job on the result seq (the log stays gap-free)', async () => {
    svc.llm.enqueueFailure({ kind: '401', count: 1 });
    const res = await post({ url: `${site.url}/product/2` });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json().error_category, 'invalid_key');
    const events = await svc.deps.events.list(res.json().job_id);
    assert.deepEqual(
      events.map((e) => [e.seq, e.type]),
      [
        [0, 'job.created'],
        [1, 'job.started'],
        [2, 'page.failed'],
        [3, 'job.failed'],
      ],
    );
    // Retrying the failed analyze job runs a new analyze job for the same page, linked to the original.
    const retry = await svc.app.inject({
      method: 'POST',
      url: `/api/v1/jobs/${res.json().job_id}/retry`,
      headers: svc.auth(),
    });
    assert.equal(retry.statusCode, 202, retry.body);
    assert.equal(retry.json().type, 'analyze');
    assert.equal(retry.json().retry_of, res.json().job_id);
    const done = await waitForJobEnd(svc, retry.json().id, 60_000);
    assert.equal(done.status, 'completed');
    const results = (
      await svc.app.inject({ url: `/api/v1/jobs/${retry.json().id}/results`, headers: svc.auth() })
    ).json();
    assert.equal(results[0].data.page_type, 'product');
  });

  test('invalid requests are 422 naming the field', async () => {
    for (const [body, location] of [
      [{ url: `${site.url}/products`, depth: 2 }, 'body.depth'],
      [{ url: 'not a url' }, 'body.url'],
      [{ url: `${site.url}/products`, fetch_mode: 'teleport' }, 'body.fetch_mode'],
    ] as const) {
      const res = await post(body);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(
        res.json().errors.some((e: { location: string }) => e.location === location),
        `${location} in ${res.body}`,
      );
    }
  });

  test('a page that answers 404 fails the job: a problem naming the job and its category', async () => {
    const res = await post({ url: `${site.url}/missing` });
    assert.equal(res.statusCode, 502, res.body);
    assert.equal(res.json().error_category, 'http_status');
    const job = (
      await svc.app.inject({ url: `/api/v1/jobs/${res.json().job_id}`, headers: svc.auth() })
    ).json();
    assert.equal(job.type, 'analyze');
    assert.equal(job.status, 'failed');
  });

  test('Idempotency-Key returns the same job; another tenant cannot see it', async () => {
    const first = await post({ url: `${site.url}/product/5` }, { 'idempotency-key': 'analyze-1' });
    const second = await post({ url: `${site.url}/product/5` }, { 'idempotency-key': 'analyze-1' });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(second.json().job_id, first.json().job_id);
    const other = await svc.newTenant('tenant-b');
    for (const path of ['', '/results', '/debug-capture']) {
      const res = await svc.app.inject({
        url: `/api/v1/jobs/${first.json().job_id}${path}`,
        headers: svc.auth(other.apiKey),
      });
      assert.equal(res.statusCode, 404, `${path}: ${res.body}`);
    }
  });
});
