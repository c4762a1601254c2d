// schema_id on /extract and /crawl: a stored schema is used and counted once per job, another tenant's public one
// is usable, a missing or private one is a 422. Jobs run on the real workflows with fake activities
// (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();

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
});
after(async () => {
  await svc?.close();
});

const call = (
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
  key?: string,
  headers: Record<string, string> = {},
) => svc.app.inject({ method, url: `/api/v1${url}`, headers: { ...svc.auth(key), ...headers }, payload });

const storeSchema = async (over: object = {}, key?: string) => {
  const res = await call(
    'POST',
    '/schemas',
    {
      name: 'product',
      schema_yaml:
        'name: product\nfields:\n  - name: name\n    type: string\n  - name: price\n    type: number\n',
      ...over,
    },
    key,
  );
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as string;
};

const usage = async (id: string, key?: string) =>
  (await call('GET', `/schemas/${id}`, undefined, key)).json().usage_count;

describe('schema_id on extract and crawl', () => {
  test('extract with a stored schema uses it and counts each created job once', async () => {
    const id = await storeSchema();
    const body = { url: `${site.url}/product`, schema_id: id };
    const res = await call('POST', '/extract', body);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().input_format, 'structured');
    assert.deepEqual(res.json().data, { name: 'Blue Kettle', price: 24.5 });
    assert.equal(await usage(id), 1);

    // An idempotent replay returns the same job and does not count again.
    const first = await call('POST', '/extract', body, undefined, { 'idempotency-key': 'schema-id-1' });
    const replay = await call('POST', '/extract', body, undefined, { 'idempotency-key': 'schema-id-1' });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(replay.json().job_id, first.json().job_id);
    assert.equal(await usage(id), 2);
  });

  test("crawl with schema_id counts too; another tenant's public schema is usable", async () => {
    const other = await svc.newTenant('tenant-publisher');
    const shared = await storeSchema({ visibility: 'public' }, other.apiKey);
    const res = await call('POST', '/crawl?wait=true&timeout=60', {
      url: `${site.url}/product`,
      schema_id: shared,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'completed');
    assert.deepEqual(res.json().data[0].data, { name: 'Blue Kettle', price: 24.5 });
    assert.equal(await usage(shared, other.apiKey), 1);
  });

  test('schema and schema_id together, or neither, is a 422 naming the field', async () => {
    const id = await storeSchema();
    for (const path of ['/extract', '/crawl']) {
      const both = await call('POST', path, { url: `${site.url}/product`, schema: 'title', schema_id: id });
      assert.equal(both.statusCode, 422, both.body);
      assert.equal(both.json().errors[0].location, 'body.schema_id');
      const neither = await call('POST', path, { url: `${site.url}/product` });
      assert.equal(neither.statusCode, 422, neither.body);
      assert.equal(neither.json().errors[0].location, 'body.schema');
    }
    assert.equal(await usage(id), 0);
  });

  test("an unknown schema or another tenant's private one is a 422 at body.schema_id", async () => {
    const other = await svc.newTenant('tenant-private');
    const theirs = await storeSchema({}, other.apiKey);
    for (const path of ['/extract', '/crawl']) {
      for (const schemaId of ['sch_nope', theirs]) {
        const res = await call('POST', path, { url: `${site.url}/product`, schema_id: schemaId });
        assert.equal(res.statusCode, 422, res.body);
        assert.equal(res.json().errors[0].location, 'body.schema_id');
      }
    }
    assert.equal(await usage(theirs, other.apiKey), 0);
  });
});
