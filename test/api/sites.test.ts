import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => svc?.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, key?: string) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(key), payload });

const newSchema = async (over: object = {}, key?: string) => {
  const res = await call('POST', '/schemas', { name: 'listing', schema_yaml: 'title: string', ...over }, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as string;
};

const ANALYSIS = {
  page_type: 'listing',
  recommended_fetch_mode: 'static',
  site_summary: 'A shop listing kettles',
  suggested_schema: 'name: product\nfields:\n  - name: title\n    type: string\n',
  sample_links: ['https://shop.example.com/p/1'],
  detected_elements: [{ name: 'product cards', type: 'repeated_item', description: 'li.card', count: 12 }],
  follow_patterns: [
    { pattern: '/p/\\d+$', description: 'product pages', sample_urls: ['https://shop.example.com/p/1'] },
  ],
};

describe('/api/v1/sites', () => {
  test('create, read, list, update, delete', async () => {
    const schemaId = await newSchema();
    const created = await call('POST', '/sites', {
      url: 'https://Shop.Example.com/kettles?page=1',
      name: 'Kettle shop',
      fetch_mode: 'static',
      default_schema_id: schemaId,
      crawl_options: { follow_selector: 'li.card a', max_pages: 200 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const site = created.json();
    assert.match(site.id, /^site_/);
    assert.equal(site.domain, 'shop.example.com');
    assert.equal(site.url, 'https://Shop.Example.com/kettles?page=1');
    assert.equal(site.organization_id, svc.tenantId);
    assert.match(site.user_id, /^key_/);
    assert.equal(site.default_schema_id, schemaId);
    assert.deepEqual(site.crawl_options, {
      follow_pattern: null,
      follow_selector: 'li.card a',
      max_depth: null,
      max_pages: 200,
    });
    assert.equal(site.analysis_result, null);

    const got = await call('GET', `/sites/${site.id}`);
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.json(), site);

    const put = await call('PUT', `/sites/${site.id}`, {
      name: 'Kettles',
      url: 'https://elsewhere.example.org/',
      crawl_options: { follow_pattern: '/p/\\d+', max_depth: 3 },
      default_schema_id: null,
    });
    assert.equal(put.statusCode, 200, put.body);
    const updated = put.json();
    assert.equal(updated.name, 'Kettles');
    assert.equal(updated.url, site.url, 'url is ignored on update');
    assert.equal(updated.domain, 'shop.example.com');
    assert.equal(updated.fetch_mode, 'static', 'a missing field keeps its value');
    assert.equal(updated.default_schema_id, null);
    assert.deepEqual(updated.crawl_options, {
      follow_pattern: '/p/\\d+',
      follow_selector: null,
      max_depth: 3,
      max_pages: null,
    });
    assert.ok(updated.updated_at > site.updated_at);

    assert.equal((await call('DELETE', `/sites/${site.id}`)).statusCode, 204);
    assert.equal((await call('GET', `/sites/${site.id}`)).statusCode, 404);
    assert.equal((await call('DELETE', `/sites/${site.id}`)).statusCode, 404);
    assert.equal((await call('PUT', `/sites/${site.id}`, { name: 'x' })).statusCode, 404);
  });

  test('defaults: name is the domain, fetch_mode auto, empty options', async () => {
    const res = await call('POST', '/sites', { url: 'https://news.example.com/' });
    assert.equal(res.statusCode, 201, res.body);
    const s = res.json();
    assert.equal(s.name, 'news.example.com');
    assert.equal(s.fetch_mode, 'auto');
    assert.equal(s.default_schema_id, null);
    assert.deepEqual(Object.values(s.crawl_options), [null, null, null, null]);
  });

  test('list is newest first, paginated, with total', async () => {
    const t = await svc.newTenant('tenant-list');
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      ids.push((await call('POST', '/sites', { url: `https://s${n}.example.com/` }, t.apiKey)).json().id);
    }
    const all = (await call('GET', '/sites', undefined, t.apiKey)).json();
    assert.deepEqual(
      all.sites.map((s: { id: string }) => s.id),
      ids.toReversed(),
    );
    assert.equal(all.total, 3);
    const page = (await call('GET', '/sites?limit=1&offset=1', undefined, t.apiKey)).json();
    assert.deepEqual(
      page.sites.map((s: { id: string }) => s.id),
      [ids[1]],
    );
    assert.equal(page.total, 3);
  });

  test('validation: url required on create, bad regex, out-of-range options, unknown default schema', async () => {
    const bad: [object, string][] = [
      [{ url: undefined }, 'body.url'],
      [{ url: 'ftp://example.com/' }, 'body.url'],
      [{ crawl_options: { follow_pattern: '([' } }, 'body.crawl_options.follow_pattern'],
      [{ crawl_options: { follow_selector: 'a[[' } }, 'body.crawl_options.follow_selector'],
      [{ crawl_options: { max_depth: 11 } }, 'body.crawl_options.max_depth'],
      [{ crawl_options: { max_pages: 0 } }, 'body.crawl_options.max_pages'],
      [{ crawl_options: { max_pages: 10_001 } }, 'body.crawl_options.max_pages'],
      [{ fetch_mode: 'turbo' }, 'body.fetch_mode'],
      [{ default_schema_id: 'sch_missing' }, 'body.default_schema_id'],
      [{ analysis_result: { ...ANALYSIS, page_type: 'blog' } }, 'body.analysis_result.page_type'],
    ];
    for (const [over, location] of bad) {
      const res = await call('POST', '/sites', { url: 'https://example.com/', ...over });
      assert.equal(res.statusCode, 422, `${JSON.stringify(over)}: ${res.body}`);
      assert.ok(
        res.json().errors.some((e: { location: string }) => e.location === location),
        `${location} in ${res.body}`,
      );
    }
    const site = (await call('POST', '/sites', { url: 'https://example.com/' })).json();
    const put = await call('PUT', `/sites/${site.id}`, { default_schema_id: 'sch_missing' });
    assert.equal(put.statusCode, 422);
    assert.equal(put.json().errors[0].location, 'body.default_schema_id');
  });

  test("default_schema_id: own or public schemas, not other tenants' private ones", async () => {
    const other = await svc.newTenant('tenant-schemas');
    const theirPrivate = await newSchema({}, other.apiKey);
    const theirPublic = await newSchema({ visibility: 'public' }, other.apiKey);
    const refused = await call('POST', '/sites', {
      url: 'https://a.example.com/',
      default_schema_id: theirPrivate,
    });
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().errors[0].location, 'body.default_schema_id');
    const ok = await call('POST', '/sites', {
      url: 'https://a.example.com/',
      default_schema_id: theirPublic,
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  test('an analyze response is saved as analysis_result as is; job_id and sample_data are dropped', async () => {
    const response = { ...ANALYSIS, job_id: 'job_123', sample_data: { title: 'Blue Kettle' } };
    const res = await call('POST', '/sites', { url: 'https://shop.example.com/', analysis_result: response });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().analysis_result, ANALYSIS);
    const id = res.json().id;
    const stored = await svc.deps.sites.get(svc.tenantId, id);
    assert.ok(stored && !('job_id' in (stored.analysis_result ?? {})));

    const put = await call('PUT', `/sites/${id}`, {
      analysis_result: { ...response, site_summary: 'Kettles' },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().analysis_result.site_summary, 'Kettles');
    assert.equal(put.json().analysis_result.job_id, undefined);
    const cleared = await call('PUT', `/sites/${id}`, { analysis_result: null });
    assert.equal(cleared.json().analysis_result, null);
  });

  test("another tenant's site is 404 on GET, PUT and DELETE, and absent from its list", async () => {
    const mine = (await call('POST', '/sites', { url: 'https://private.example.com/' })).json();
    const other = await svc.newTenant('tenant-other');
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(
        method,
        `/sites/${mine.id}`,
        method === 'PUT' ? { name: 'x' } : undefined,
        other.apiKey,
      );
      assert.equal(res.statusCode, 404, method);
      assert.equal(res.json().type, '/problems/not-found');
    }
    assert.deepEqual((await call('GET', '/sites', undefined, other.apiKey)).json(), { sites: [], total: 0 });
    assert.equal((await call('GET', `/sites/${mine.id}`)).json().name, 'private.example.com');
  });

  test('sites and schemas are documented in the OpenAPI document', async () => {
    const res = await svc.app.inject({ url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200, res.body);
    const doc = res.json();
    for (const name of ['Site', 'SiteCreateRequest', 'StoredSchema', 'SchemaCategory', 'SchemaVisibility'])
      assert.ok(doc.components.schemas[name], name);
    assert.ok(doc.paths['/api/v1/sites/{id}'].put);
    assert.ok(doc.paths['/api/v1/schemas/{id}'].delete);
  });
});
