// POST /api/v1/extract: a waited extract end to end through the API, failures as problems naming the job,
// idempotency, validation, listing and rebuilt projections. Jobs run on the real workflows with fake activities
// (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CategorizedError } from '../../shared/errors.js';
import { COLLECTIONS } from '../../shared/store/mongo.js';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();
const fakes = fakeActivities({ pages: site.pages });

before(async () => {
  svc = await startTestService({ activities: fakes });
  site.route(
    '/product',
    html(
      'Blue Kettle',
      '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>Brand: Acme</p><p>A kettle that boils water quickly and ' +
        'quietly, with an automatic shut-off and a removable filter. Holds 1.7 litres.</p></main>',
    ),
  );
  site.route('/gone', { status: 404, body: '<h1>gone</h1>' });
});
after(async () => {
  await svc?.close();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: { ...svc.auth(), ...headers },
    payload: body as object,
  });

describe('POST /api/v1/extract', () => {
  test('extracts a page end to end and records the job', async () => {
    const res = await post({
      url: `${site.url}/product`,
      schema: { name: 'string', price: 'number', brand: 'string' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.data, { name: 'Blue Kettle', price: 24.5, brand: 'Acme' });
    assert.equal(body.input_format, 'fields');
    assert.equal(body.url, `${site.url}/product`);
    assert.equal(body.metadata.provider, 'openai');
    assert.equal(body.metadata.model, 'gpt-4o-mini');
    assert.ok(body.usage.input_tokens > 0 && body.usage.output_tokens > 0);
    assert.ok(body.usage.llm_cost_usd > 0, 'gpt-4o-mini has a known price');
    assert.equal(body.usage.is_byok, false);
    assert.match(body.fetched_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // The model was sent the page (the SDK calls with the operator key: test/integration/api/llm).
    assert.match(fakes.asked.at(-1)?.body ?? '', /Blue Kettle/);

    const job = await svc.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${body.job_id}`,
      headers: svc.auth(),
    });
    assert.equal(job.statusCode, 200);
    const j = job.json();
    assert.equal(j.status, 'completed');
    assert.equal(j.type, 'extract');
    assert.equal(j.page_count, 1);
    assert.equal(j.token_usage_input, body.usage.input_tokens);
    assert.equal(j.token_usage_output, body.usage.output_tokens);
    assert.equal(j.cost_usd, body.usage.cost_usd);
    assert.equal(j.workflow_id, `extract-${body.job_id}`);
    assert.ok(
      j.started_at && j.completed_at && j.created_at <= j.started_at && j.started_at <= j.completed_at,
    );

    const events = await svc.deps.events.list(body.job_id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['job.created', 'job.started', 'page.completed', 'job.completed'],
    );
    assert.deepEqual(
      events.map((e) => e.seq),
      [0, 1, 2, 3],
    );
  });

  test('a structured YAML schema and a prompt are detected and reported', async () => {
    const yaml = 'name: product\nfields:\n  - name: brand\n    type: string\n    required: true\n';
    const structured = await post({ url: `${site.url}/product`, schema: yaml });
    assert.equal(structured.statusCode, 200, structured.body);
    assert.equal(structured.json().input_format, 'structured');
    assert.equal(structured.json().data.brand, 'Acme');
    const prompt = await post({ url: `${site.url}/product`, schema: 'What is the product and its price?' });
    assert.equal(prompt.statusCode, 200, prompt.body);
    assert.equal(prompt.json().input_format, 'prompt');
  });

  test('a target page that answers 404 fails the job with http_status, as a problem naming the job', async () => {
    const res = await post({ url: `${site.url}/gone`, schema: { title: 'string' } });
    assert.equal(res.statusCode, 502, res.body);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    const problem = res.json();
    assert.equal(problem.error_category, 'http_status');
    assert.ok(problem.job_id);
    const job = (await svc.app.inject({ url: `/api/v1/jobs/${problem.job_id}`, headers: svc.auth() })).json();
    assert.equal(job.status, 'failed');
    assert.equal(job.error_category, 'http_status');
    assert.match(job.error_message, /404/);
  });

  test('a model failure after the fetch fails the job on the page result seq, and the job reads failed', async () => {
    // The model chain's refusal of a revoked key (a provider's 401 mapped to it: test/integration/api/llm).
    site.route('/refused', site.pages[`${site.url}/product`] as string);
    fakes.failNext(
      `${site.url}/refused`,
      new CategorizedError('invalid_key', 'the provider refused the key (401)'),
    );
    const res = await post({ url: `${site.url}/refused`, schema: { name: 'string' } });
    assert.equal(res.statusCode, 401, res.body);
    const problem = res.json();
    assert.equal(problem.error_category, 'invalid_key');
    const job = (await svc.app.inject({ url: `/api/v1/jobs/${problem.job_id}`, headers: svc.auth() })).json();
    assert.equal(job.status, 'failed');
    assert.equal(job.error_category, 'invalid_key');
    assert.equal(job.failed_count, 1);
    const events = await svc.deps.events.list(problem.job_id);
    assert.deepEqual(
      events.map((e) => [e.seq, e.type]),
      [
        [0, 'job.created'],
        [1, 'job.started'],
        [2, 'page.failed'],
        [3, 'job.failed'],
      ],
    );
  });

  test('Idempotency-Key returns the same job instead of starting another', async () => {
    const body = { url: `${site.url}/product`, schema: { name: 'string' } };
    const first = await post(body, { 'idempotency-key': 'order-42' });
    const second = await post(body, { 'idempotency-key': 'order-42' });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(first.json().job_id, second.json().job_id);
    const other = await post(body, { 'idempotency-key': 'order-43' });
    assert.notEqual(other.json().job_id, first.json().job_id);
  });

  test('invalid fields are a 422 problem naming each field', async () => {
    const res = await post({ url: '', schema: { title: 'string' }, fetch_mode: 'teleport', surprise: 1 });
    assert.equal(res.statusCode, 422);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    const problem = res.json();
    assert.equal(problem.status, 422);
    assert.equal(problem.instance, '/api/v1/extract');
    const locations = problem.errors.map((e: { location: string }) => e.location).sort();
    assert.deepEqual(locations, ['body.fetch_mode', 'body.surprise', 'body.url']);
    const mode = problem.errors.find((e: { location: string }) => e.location === 'body.fetch_mode');
    assert.equal(mode.value, 'teleport');
  });

  test('a schema with no usable field is a 422 on body.schema, and no job is created', async () => {
    const before = await svc.mongo.db.collection(COLLECTIONS.jobs).countDocuments();
    const res = await post({ url: `${site.url}/product`, schema: { name: 'product', fields: [] } });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().errors[0].location, 'body.schema');
    assert.equal(await svc.mongo.db.collection(COLLECTIONS.jobs).countDocuments(), before);
  });

  test('a URL that is not http(s) is a 422 on body.url', async () => {
    const res = await post({ url: 'ftp://example.com/x', schema: { title: 'string' } });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().errors[0].location, 'body.url');
  });
});

describe('operators', () => {
  test('workflows are findable by tenant, job type, domain and status, with the URL in the memo', async () => {
    const res = await post({ url: `${site.url}/product`, schema: { name: 'string' } });
    assert.equal(res.statusCode, 200, res.body);
    const jobId = res.json().job_id;
    const query =
      `ExtractTenant = '${svc.tenantId}' AND ExtractJobType = 'extract' AND ` +
      `ExtractDomain = '${new URL(site.url).hostname}' AND ExtractJobStatus = 'completed'`;
    let found: string[] = [];
    for (let i = 0; i < 50 && !found.includes(`extract-${jobId}`); i++) {
      found = [];
      for await (const wf of svc.deps.temporal.workflow.list({ query })) found.push(wf.workflowId);
      if (!found.includes(`extract-${jobId}`)) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(found.includes(`extract-${jobId}`), `found ${found.join(', ')}`);
    const description = await svc.deps.temporal.workflow.getHandle(`extract-${jobId}`).describe();
    assert.equal(description.memo?.url, `${site.url}/product`);
    const failedQuery = `ExtractTenant = '${svc.tenantId}' AND ExtractJobStatus = 'failed'`;
    for await (const wf of svc.deps.temporal.workflow.list({ query: failedQuery })) {
      assert.notEqual(wf.workflowId, `extract-${jobId}`);
    }
  });
});

describe('jobs list and projections', () => {
  test('lists newest first with limit and offset', async () => {
    const other = await svc.newTenant('lister');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/extract',
        headers: svc.auth(other.apiKey),
        payload: { url: `${site.url}/product`, schema: { name: 'string' } },
      });
      assert.equal(res.statusCode, 200, res.body);
      ids.push(res.json().job_id);
    }
    const list = async (q: string) =>
      (await svc.app.inject({ url: `/api/v1/jobs?${q}`, headers: svc.auth(other.apiKey) }))
        .json()
        .jobs.map((j: { id: string }) => j.id);
    assert.deepEqual(await list('limit=20'), [...ids].reverse());
    assert.deepEqual(await list('limit=2'), [ids[2], ids[1]]);
    assert.deepEqual(await list('limit=2&offset=2'), [ids[0]]);
    assert.deepEqual(await list('offset=3'), []);
  });

  test('rebuilding the projections from the event log gives the same jobs and results', async () => {
    const db = svc.mongo.db;
    const snapshot = async () => ({
      jobs: await db.collection(COLLECTIONS.jobs).find().sort({ _id: 1 }).toArray(),
      results: await db.collection(COLLECTIONS.results).find().sort({ _id: 1 }).toArray(),
      index: await db.collection(COLLECTIONS.tenantJobs).find().sort({ _id: 1 }).toArray(),
    });
    const before = await snapshot();
    assert.ok(before.jobs.length >= 5, 'earlier tests made jobs');
    await db.collection(COLLECTIONS.jobs).deleteMany({});
    const { jobs } = await svc.deps.events.rebuildAll();
    assert.equal(jobs, before.jobs.length);
    assert.deepEqual(await snapshot(), before);
  });
});
