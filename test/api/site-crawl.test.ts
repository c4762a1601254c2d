// POST /api/v1/sites/{id}/crawl: a stored site crawled with its saved options, fetch mode and default schema.
// Jobs run on the real workflows with fake activities over the shop's page table (test/support/shop-table.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fakeActivities, type PageTable } from '../support/fake-activities.js';
import { startTestService, type TestService } from '../support/service.js';
import { shopTable } from '../support/shop-table.js';

let svc: TestService;
const shop: PageTable = shopTable();

before(async () => {
  svc = await startTestService({ activities: fakeActivities({ pages: shop.pages }) });
});
after(async () => {
  await svc?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object, key?: string) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(key), payload });

async function storedSite(over: object = {}) {
  const schema = await call('POST', '/schemas', {
    name: 'product',
    schema_yaml:
      'name: product\nfields:\n  - name: name\n    type: string\n  - name: price\n    type: number\n',
  });
  assert.equal(schema.statusCode, 201, schema.body);
  const site = await call('POST', '/sites', {
    name: 'Shop',
    url: `${shop.url}/`,
    fetch_mode: 'static',
    default_schema_id: schema.json().id,
    crawl_options: { follow_selector: 'a.product', max_pages: 3, max_depth: 1 },
    ...over,
  });
  assert.equal(site.statusCode, 201, site.body);
  return { siteId: site.json().id as string, schemaId: schema.json().id as string };
}

describe('POST /api/v1/sites/{id}/crawl', () => {
  test("crawls the site's url with its saved options and default schema; the schema's use is counted", async () => {
    const { siteId, schemaId } = await storedSite();
    const res = await call('POST', `/sites/${siteId}/crawl?wait=true&timeout=60`, {});
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.page_count, 3, 'max_pages 3 from the site');
    assert.ok(body.data.every((r: { url: string }) => r.url.startsWith(shop.url)));
    assert.ok(
      body.data.some((r: { url: string }) => /\/product\/\d+$/.test(r.url)),
      'follow_selector used',
    );
    const job = (await call('GET', `/jobs/${body.job_id}`)).json();
    assert.equal(job.url, `${shop.url}/`);
    assert.equal((await call('GET', `/schemas/${schemaId}`)).json().usage_count, 1);
  });

  test('options given in the request override the saved ones one by one', async () => {
    const { siteId } = await storedSite();
    const res = await call('POST', `/sites/${siteId}/crawl?wait=true&timeout=60`, {
      options: { max_pages: 2 },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().page_count, 2);
    const map = (await call('GET', `/jobs/${res.json().job_id}/crawl-map`)).json();
    assert.ok(
      map.entries.some((e: { url: string }) => /\/product\/\d+$/.test(e.url)),
      'saved follow_selector kept',
    );
  });

  test('without a schema and without a default schema: 409 at body.schema; both given: 422 at body.schema_id', async () => {
    const { siteId, schemaId } = await storedSite({ default_schema_id: null });
    const none = await call('POST', `/sites/${siteId}/crawl`, {});
    assert.equal(none.statusCode, 409, none.body);
    assert.equal(none.json().errors[0].location, 'body.schema');
    const both = await call('POST', `/sites/${siteId}/crawl`, {
      schema: { name: 'string' },
      schema_id: schemaId,
    });
    assert.equal(both.statusCode, 422, both.body);
    assert.equal(both.json().errors[0].location, 'body.schema_id');
    const bad = await call('POST', `/sites/${siteId}/crawl`, {
      schema: { name: 'string' },
      options: { max_pages: 0 },
    });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.equal(bad.json().errors[0].location, 'body.options.max_pages');
  });

  test("another tenant's site is 404", async () => {
    const { siteId } = await storedSite();
    const other = await svc.newTenant('site-crawl-other');
    const res = await call('POST', `/sites/${siteId}/crawl`, {}, other.apiKey);
    assert.equal(res.statusCode, 404, res.body);
  });
});
