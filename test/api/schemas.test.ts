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

const PRODUCT_YAML =
  'name: product\nfields:\n  - name: title\n    type: string\n  - name: price\n    type: number\n';

const schema = (over: object = {}) => ({
  name: 'Product page',
  description: 'Title and price of one product',
  category: 'ecommerce',
  schema_yaml: PRODUCT_YAML,
  tags: ['shop', 'product'],
  ...over,
});

describe('/api/v1/schemas', () => {
  test('create, read, list, update, delete', async () => {
    const created = await call('POST', '/schemas', schema());
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.id, /^sch_/);
    assert.equal(body.organization_id, svc.tenantId);
    assert.match(body.user_id, /^key_/);
    assert.equal(body.visibility, 'private');
    assert.equal(body.is_platform, false);
    assert.equal(body.usage_count, 0);
    assert.deepEqual(body.tags, ['shop', 'product']);
    assert.equal(body.schema_yaml, PRODUCT_YAML);
    assert.equal(body.created_at, body.updated_at);

    const got = await call('GET', `/schemas/${body.id}`);
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.json(), body);
    const list = (await call('GET', '/schemas')).json();
    assert.ok(list.schemas.some((s: { id: string }) => s.id === body.id));

    const put = await call('PUT', `/schemas/${body.id}`, { name: 'Product v2', tags: null });
    assert.equal(put.statusCode, 200, put.body);
    const updated = put.json();
    assert.equal(updated.name, 'Product v2');
    assert.equal(updated.tags, null);
    assert.equal(updated.category, 'ecommerce', 'a missing field keeps its value');
    assert.equal(updated.schema_yaml, PRODUCT_YAML);
    assert.ok(updated.updated_at > body.updated_at);

    assert.equal((await call('DELETE', `/schemas/${body.id}`)).statusCode, 204);
    assert.equal((await call('GET', `/schemas/${body.id}`)).statusCode, 404);
    assert.equal((await call('DELETE', `/schemas/${body.id}`)).statusCode, 404);
    const after = (await call('GET', '/schemas')).json();
    assert.ok(!after.schemas.some((s: { id: string }) => s.id === body.id));
  });

  test('defaults: category other, no tags, private, empty description', async () => {
    const res = await call('POST', '/schemas', { name: 'bare', schema_yaml: 'title: string' });
    assert.equal(res.statusCode, 201, res.body);
    const b = res.json();
    assert.deepEqual([b.category, b.tags, b.visibility, b.description], ['other', null, 'private', '']);
  });

  test('schema_yaml is checked by the extract parser: 422 located inside it', async () => {
    const bad: [string, string][] = [
      ['name: product\nfields:\n  - name: price\n    type: money\n', 'body.schema_yaml.fields.0.type'],
      ['name: [unclosed\nfields: x', 'body.schema_yaml'],
      ['just some words', 'body.schema_yaml'],
      ['price: money', 'body.schema_yaml.price'],
    ];
    for (const [yaml, location] of bad) {
      const res = await call('POST', '/schemas', schema({ schema_yaml: yaml }));
      assert.equal(res.statusCode, 422, `${yaml}: ${res.body}`);
      assert.equal(res.json().errors[0].location, location, res.body);
    }
    const created = (await call('POST', '/schemas', schema())).json();
    const put = await call('PUT', `/schemas/${created.id}`, { schema_yaml: 'price: money' });
    assert.equal(put.statusCode, 422);
    assert.equal(put.json().errors[0].location, 'body.schema_yaml.price');
    assert.equal((await call('GET', `/schemas/${created.id}`)).json().schema_yaml, PRODUCT_YAML);
  });

  test('field rules: closed category and visibility, name required, tags bounded', async () => {
    const bad: [object, string][] = [
      [{ category: 'cooking' }, 'body.category'],
      [{ visibility: 'shared' }, 'body.visibility'],
      [{ name: '' }, 'body.name'],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'body.tags'],
      [{ unknown: 1 }, 'body.unknown'],
    ];
    for (const [over, location] of bad) {
      const res = await call('POST', '/schemas', schema(over));
      assert.equal(res.statusCode, 422, `${JSON.stringify(over)}: ${res.body}`);
      assert.ok(
        res.json().errors.some((e: { location: string }) => e.location === location),
        `${location} in ${res.body}`,
      );
    }
  });

  test('list filters: category, tag, visibility, include_public; paging with total', async () => {
    const t = await svc.newTenant('tenant-filters');
    const make = async (over: object) => (await call('POST', '/schemas', schema(over), t.apiKey)).json().id;
    const news = await make({ category: 'news', tags: ['daily'] });
    const jobs = await make({ category: 'jobs', tags: ['daily', 'remote'], visibility: 'public' });
    const shop = await make({ category: 'ecommerce', tags: null });
    const list = async (query: string) => {
      const res = await call('GET', `/schemas?include_public=false&${query}`, undefined, t.apiKey);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { schemas: { id: string }[]; total: number };
    };
    const ids = async (query: string) => (await list(query)).schemas.map((s) => s.id);
    assert.deepEqual(await ids(''), [shop, jobs, news], 'newest first');
    assert.deepEqual(await ids('category=news'), [news]);
    assert.deepEqual(await ids('tag=daily'), [jobs, news]);
    assert.deepEqual(await ids('tag=remote&category=jobs'), [jobs]);
    assert.deepEqual(await ids('visibility=public'), [jobs]);
    assert.deepEqual(await ids('visibility=private'), [shop, news]);
    const page = await list('limit=1&offset=1');
    assert.deepEqual(
      page.schemas.map((s) => s.id),
      [jobs],
    );
    assert.equal(page.total, 3);
    const badQuery = await call('GET', '/schemas?category=cooking', undefined, t.apiKey);
    assert.equal(badQuery.statusCode, 422);
    assert.equal(badQuery.json().errors[0].location, 'query.category');
  });

  test('private schemas are 404 to other tenants; public ones are readable and listable, never writable', async () => {
    const mine = (await call('POST', '/schemas', schema({ name: 'secret one' }))).json();
    const shared = (
      await call('POST', '/schemas', schema({ name: 'shared one', visibility: 'public' }))
    ).json();
    const other = await svc.newTenant('tenant-other');

    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(
        method,
        `/schemas/${mine.id}`,
        method === 'PUT' ? { name: 'x' } : undefined,
        other.apiKey,
      );
      assert.equal(res.statusCode, 404, `${method} private`);
    }
    const read = await call('GET', `/schemas/${shared.id}`, undefined, other.apiKey);
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().name, 'shared one');
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await call(
        method,
        `/schemas/${shared.id}`,
        method === 'PUT' ? { name: 'x' } : undefined,
        other.apiKey,
      );
      assert.equal(res.statusCode, 404, `${method} public`);
    }
    assert.equal((await call('GET', `/schemas/${shared.id}`)).json().name, 'shared one');

    const listed = (await call('GET', '/schemas', undefined, other.apiKey)).json();
    const ids = listed.schemas.map((s: { id: string }) => s.id);
    assert.ok(ids.includes(shared.id), 'public schemas of others are listed');
    assert.ok(!ids.includes(mine.id), 'private schemas of others are not');
    const own = (await call('GET', '/schemas?include_public=false', undefined, other.apiKey)).json();
    assert.deepEqual(own, { schemas: [], total: 0 });

    // Made private again, it disappears for the other tenant.
    assert.equal((await call('PUT', `/schemas/${shared.id}`, { visibility: 'private' })).statusCode, 200);
    assert.equal((await call('GET', `/schemas/${shared.id}`, undefined, other.apiKey)).statusCode, 404);
    const again = (await call('GET', '/schemas', undefined, other.apiKey)).json();
    assert.ok(!again.schemas.some((s: { id: string }) => s.id === shared.id));
  });
});
