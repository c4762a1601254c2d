// GET /jobs/{id}/results in JSON, JSONL and YAML, merged or not, for completed, failed and unfinished jobs.
// Jobs run on the real workflows with fake activities (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import type { JobEvent, PageCompletedData } from '../../shared/events.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();
let productJob: string;
let listingJob: string;
let failedJob: string;

const SPEC_FIELDS = ['id', 'url', 'status', 'data', 'error_category', 'error_message'];
const PROBLEM = 'application/problem+json; charset=utf-8';
const KETTLE = 'https://shop.test/p/kettle';
const TOASTER = 'https://shop.test/p/toaster';

const extract = async (path: string, schema: unknown) =>
  (
    await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { url: `${site.url}${path}`, schema },
    })
  ).json();

const results = (jobId: string, query = '', headers: Record<string, string> = {}, key?: string) =>
  svc.app.inject({
    url: `/api/v1/jobs/${jobId}/results${query ? `?${query}` : ''}`,
    headers: { ...svc.auth(key), ...headers },
  });

const jsonLines = (body: string) => {
  assert.ok(body === '' || body.endsWith('\n'), 'every line ends in a newline');
  return body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
};

before(async () => {
  svc = await startTestService({ activities: fakeActivities({ pages: site.pages }) });
  site.route(
    '/product',
    html(
      'Blue Kettle',
      '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>Brand: Acme</p><p>A kettle that boils water quickly and ' +
        'quietly, with an automatic shut-off and a removable filter. Holds 1.7 litres.</p></main>',
    ),
  );
  // The kettle is listed twice, first without its price: merging keeps the richer entry.
  site.route(
    '/listing',
    html(
      'Kitchen',
      '<main><h1>Kitchen appliances</h1><p>Everything for a kitchen that works: kettles, toasters and more, ' +
        'all in stock and shipped within two days from our warehouse.</p><h2>Products</h2><ul>' +
        `<li>Name: Blue Kettle, Url: ${KETTLE}</li>` +
        `<li>Name: Red Toaster, Url: ${TOASTER}, Price: 30</li>` +
        `<li>Name: Blue Kettle, Url: ${KETTLE}, Price: 24.5</li>` +
        '</ul></main>',
    ),
  );
  site.route('/gone', { status: 404, body: '<h1>gone</h1>' });

  productJob = (await extract('/product', { name: 'string', price: 'number', brand: 'string' })).job_id;
  listingJob = (await extract('/listing', { products: [{ name: 'string', url: 'string', price: 'number' }] }))
    .job_id;
  failedJob = (await extract('/gone', { title: 'string' })).job_id;
  assert.ok(productJob && listingJob && failedJob);
});
after(async () => {
  await svc?.close();
});

describe('GET /api/v1/jobs/{id}/results', () => {
  test('JSON by default: the spec fields in order, error fields null on a completed page', async () => {
    const res = await results(productJob);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.match(String(res.headers.vary), /accept/i);
    const items = res.json();
    assert.equal(items.length, 1);
    assert.deepEqual(Object.keys(items[0]), SPEC_FIELDS);
    assert.equal(items[0].url, `${site.url}/product`);
    assert.equal(items[0].status, 'completed');
    assert.deepEqual(items[0].data, { name: 'Blue Kettle', price: 24.5, brand: 'Acme' });
    assert.equal(items[0].error_category, null);
    assert.equal(items[0].error_message, null);
    assert.equal(typeof items[0].id, 'string');
  });

  test('format=jsonl and format=yaml give the same items; format wins over Accept', async () => {
    const json = (await results(productJob)).json();
    const jsonl = await results(productJob, 'format=jsonl', { accept: 'application/yaml' });
    assert.equal(jsonl.statusCode, 200, jsonl.body);
    assert.equal(jsonl.headers['content-type'], 'application/x-ndjson; charset=utf-8');
    assert.deepEqual(jsonLines(jsonl.body), json);
    const yml = await results(productJob, 'format=yaml', { accept: 'application/x-ndjson' });
    assert.equal(yml.headers['content-type'], 'application/yaml; charset=utf-8');
    assert.deepEqual(yaml.load(yml.body), json);
    const forced = await results(productJob, 'format=json', { accept: 'text/html' });
    assert.equal(forced.statusCode, 200, 'format wins even over an Accept that allows none');
    assert.deepEqual(forced.json(), json);
  });

  test('the Accept header chooses the format, answering with the type matched', async () => {
    const json = (await results(productJob)).json();
    const cases: [string, string, 'json' | 'jsonl' | 'yaml'][] = [
      ['application/x-ndjson', 'application/x-ndjson', 'jsonl'],
      ['application/jsonl', 'application/jsonl', 'jsonl'],
      ['application/yaml', 'application/yaml', 'yaml'],
      ['text/yaml', 'text/yaml', 'yaml'],
      ['application/x-yaml', 'application/x-yaml', 'yaml'],
      ['application/json', 'application/json', 'json'],
      ['*/*', 'application/json', 'json'],
      ['text/html, application/xhtml+xml, */*;q=0.8', 'application/json', 'json'],
      ['application/json;q=0.5, application/yaml', 'application/yaml', 'yaml'],
      ['application/yaml;q=0.2, application/x-ndjson;q=0.9', 'application/x-ndjson', 'jsonl'],
    ];
    for (const [accept, type, format] of cases) {
      const res = await results(productJob, '', { accept });
      assert.equal(res.statusCode, 200, `${accept}: ${res.body}`);
      assert.equal(res.headers['content-type'], `${type}; charset=utf-8`, accept);
      const parsed =
        format === 'json' ? res.json() : format === 'jsonl' ? jsonLines(res.body) : yaml.load(res.body);
      assert.deepEqual(parsed, json, accept);
    }
  });

  test('an Accept that allows none of the formats is a 406 problem', async () => {
    for (const accept of ['text/html', 'application/xml, text/plain;q=0.5', 'application/json;q=0']) {
      const res = await results(productJob, '', { accept });
      assert.equal(res.statusCode, 406, accept);
      assert.equal(res.headers['content-type'], PROBLEM);
      const problem = res.json();
      assert.equal(problem.type, '/problems/not-acceptable');
      assert.equal(problem.status, 406);
      assert.match(problem.detail, /application\/x-ndjson/);
    }
    const doc = await svc.app.inject({ url: '/problems/not-acceptable' });
    assert.equal(doc.json().status, 406);
  });

  test('a failed page has null data and its error category and message, in every format', async () => {
    const res = await results(failedJob);
    assert.equal(res.statusCode, 200, res.body);
    const [item] = res.json();
    assert.deepEqual(Object.keys(item), SPEC_FIELDS);
    assert.equal(item.status, 'failed');
    assert.equal(item.url, `${site.url}/gone`);
    assert.equal(item.data, null);
    assert.equal(item.error_category, 'http_status');
    assert.match(item.error_message, /404/);
    assert.deepEqual(jsonLines((await results(failedJob, 'format=jsonl')).body), [item]);
    assert.deepEqual(yaml.load((await results(failedJob, 'format=yaml')).body), [item]);
    const merged = await results(failedJob, 'merge=true');
    assert.deepEqual(merged.json(), [], 'a failed page contributes nothing to a merge');
  });

  test("merge=true unwraps an object's arrays of records and keeps the richest record per url", async () => {
    const [page] = (await results(listingJob)).json();
    assert.equal(page.status, 'completed', JSON.stringify(page));
    assert.equal(page.data.products.length, 3, JSON.stringify(page.data));

    const expected = [
      { name: 'Blue Kettle', url: KETTLE, price: 24.5 },
      { name: 'Red Toaster', url: TOASTER, price: 30 },
    ];
    const json = await results(listingJob, 'merge=true');
    assert.equal(json.statusCode, 200, json.body);
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(json.json(), expected);
    const jsonl = await results(listingJob, 'merge=true', { accept: 'application/x-ndjson' });
    assert.deepEqual(jsonLines(jsonl.body), expected, 'one merged record per line');
    const yml = await results(listingJob, 'merge=true&format=yaml');
    assert.deepEqual(yaml.load(yml.body), expected);
    assert.deepEqual((await results(listingJob, 'merge=false')).json(), [page]);
  });

  test('a multi-page job: page order, failed pages, and a merge across pages', async () => {
    const jobId = await seedCrawlJob();
    const items = (await results(jobId)).json();
    assert.deepEqual(
      items.map((i: { url: string; status: string }) => [i.url, i.status]),
      [
        ['https://shop.test/', 'completed'],
        [KETTLE, 'completed'],
        ['https://shop.test/p/broken', 'failed'],
        ['https://shop.test/p/private', 'skipped'],
        [TOASTER, 'completed'],
      ],
    );
    assert.equal(items[2].error_category, 'fetch_timeout');
    assert.equal(items[3].error_category, 'robots_disallowed');
    assert.equal(items[3].data, null);

    const merged = (await results(jobId, 'merge=true')).json();
    assert.deepEqual(merged, [
      { url: KETTLE, name: 'Blue Kettle', price: 24.5, description: 'Boils quickly.' },
      { url: TOASTER, name: 'Red Toaster', price: 30, description: null },
    ]);
  });

  test('a job with no finished page yet gives an empty list in every format', async () => {
    const jobId = 'job_results_empty';
    await svc.deps.events.append([event(jobId, 0, 'job.created', created('extract'))]);
    assert.deepEqual((await results(jobId)).json(), []);
    assert.deepEqual((await results(jobId, 'merge=true')).json(), []);
    const jsonl = await results(jobId, 'format=jsonl');
    assert.equal(jsonl.statusCode, 200);
    assert.equal(jsonl.body, '');
    assert.deepEqual(yaml.load((await results(jobId, 'format=yaml')).body), []);
  });

  test("another tenant's job and an unknown job are 404", async () => {
    const other = await svc.newTenant('results-other');
    const theirs = await results(productJob, '', {}, other.apiKey);
    assert.equal(theirs.statusCode, 404);
    assert.equal(theirs.headers['content-type'], PROBLEM);
    assert.doesNotMatch(theirs.body, /Blue Kettle/);
    const unknown = await results('job_does_not_exist', 'format=yaml');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.headers['content-type'], PROBLEM);
  });

  test('a bad format or merge value is a 422 naming the parameter', async () => {
    const bad = await results(productJob, 'format=xml');
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().errors[0].location, 'query.format');
    const merge = await results(productJob, 'merge=yes');
    assert.equal(merge.statusCode, 422);
    assert.equal(merge.json().errors[0].location, 'query.merge');
  });

  test('the OpenAPI document shows the three media types, and the 406', async () => {
    const doc = (await svc.app.inject({ url: '/api/v1/openapi.json' })).json();
    const op = doc.paths['/api/v1/jobs/{id}/results'].get;
    assert.deepEqual(Object.keys(op.responses['200'].content).sort(), [
      'application/json',
      'application/x-ndjson',
      'application/yaml',
    ]);
    assert.ok(op.responses['406'].content['application/problem+json']);
    const params = op.parameters.map((p: { name: string }) => p.name).sort();
    assert.deepEqual(params, ['format', 'id', 'include_provenance', 'merge']);
    assert.ok(doc.components.schemas.JobResult);
    assert.ok(doc.components.schemas.MergedResults);
    assert.match(op.description, /merge=true/);
  });
});

// A crawl-shaped job written straight to the event log, as the crawl workflow writes it.
function event(jobId: string, seq: number, type: JobEvent['type'], data: unknown): JobEvent {
  return {
    type,
    data,
    job_id: jobId,
    tenant_id: svc.tenantId,
    seq,
    event_id: `${jobId}-${seq}`,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
  } as JobEvent;
}

const created = (jobType: 'extract' | 'crawl') => ({
  job_type: jobType,
  url: 'https://shop.test/',
  capture_debug: false,
  workflow_id: `${jobType}-x`,
  idempotency_key: null,
});

function completed(url: string, data: unknown, n: number): PageCompletedData {
  return {
    page_id: `page_${n}`,
    url,
    final_url: url,
    depth: n === 0 ? 0 : 1,
    parent_url: n === 0 ? null : 'https://shop.test/',
    data,
    input_format: 'fields',
    fetch_mode: 'static',
    fetched_at: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    fetch_duration_ms: 1,
    clean_duration_ms: 1,
    extract_duration_ms: 1,
    provider: 'openai',
    model: 'gpt-4o-mini',
    fallback_position: 0,
    usage: { input_tokens: 1, output_tokens: 1, llm_cost_usd: 0, cost_usd: 0, is_byok: false },
    price_known: true,
  };
}

const notDone = (url: string, n: number, category: string, message: string) => ({
  page_id: `page_${n}`,
  url,
  depth: 1,
  parent_url: 'https://shop.test/',
  error_category: category,
  error_message: message,
});

async function seedCrawlJob(): Promise<string> {
  const jobId = 'job_results_crawl';
  const listing = {
    products: [
      { url: KETTLE, name: 'Blue Kettle', price: null, description: null },
      { url: TOASTER, name: 'Red Toaster', price: 30, description: null },
    ],
  };
  await svc.deps.events.append([
    event(jobId, 0, 'job.created', created('crawl')),
    event(jobId, 1, 'job.started', {}),
    event(jobId, 2, 'page.completed', completed('https://shop.test/', listing, 0)),
    event(
      jobId,
      3,
      'page.completed',
      completed(KETTLE, { url: KETTLE, name: 'Blue Kettle', price: 24.5, description: 'Boils quickly.' }, 1),
    ),
    event(jobId, 4, 'page.failed', notDone('https://shop.test/p/broken', 2, 'fetch_timeout', 'timed out')),
    event(jobId, 5, 'page.skipped', notDone('https://shop.test/p/private', 3, 'robots_disallowed', 'robots')),
    // A poorer copy of the toaster: the listing's entry stays.
    event(jobId, 6, 'page.completed', completed(TOASTER, { url: TOASTER, name: 'Red Toaster' }, 4)),
    event(jobId, 7, 'job.completed', { duration_ms: 7 }),
  ]);
  return jobId;
}
