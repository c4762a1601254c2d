// FerretDB over SQLite hands a filter to SQLite only when it is exactly `{ _id: <string> }`; any other filter
// (another field beside `_id`, `$in`, a range, a field alone) reads and decodes the whole collection, which
// on a grown store costs seconds. Every command the stores send on a job's paths (pages, events, results,
// learned extractors, webhooks, keys) is recorded here through the driver's command monitoring, and each
// filter must be that shape.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type CommandStartedEvent, type Document, MongoClient } from 'mongodb';
import { CrawlUrlStore, seenSetName } from '../../shared/store/crawl-urls.js';
import { createStores, type Stores } from '../../shared/store/index.js';
import { COLLECTIONS, ensureIndexes } from '../../shared/store/mongo.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
let client: MongoClient;
let stores: Stores;
const seen: { command: string; collection: string; filter: Document }[] = [];

/** The filters of one command: find, update, delete, findAndModify, aggregate's $match, count, distinct. */
function filtersOf(e: CommandStartedEvent): Document[] {
  const c = e.command;
  switch (e.commandName) {
    case 'find':
    case 'count':
    case 'distinct':
      return [c.filter ?? c.query ?? {}];
    case 'findAndModify':
      return [c.query ?? {}];
    case 'update':
      return (c.updates as { q: Document }[]).map((u) => u.q);
    case 'delete':
      return (c.deletes as { q: Document }[]).map((d) => d.q);
    case 'aggregate':
      return [(c.pipeline as Document[]).find((s) => s.$match)?.$match ?? {}];
    default:
      return [];
  }
}

const keyed = (filter: Document) =>
  Object.keys(filter).length === 1 && typeof filter._id === 'string' && filter._id.length > 0;

/** Runs `work` and returns the filters it sent, failing on any that FerretDB would answer by a scan. */
async function assertKeyed(work: () => Promise<unknown>): Promise<number> {
  seen.length = 0;
  await work();
  const scans = seen.filter((s) => !keyed(s.filter));
  assert.deepEqual(scans, [], 'every filter is exactly { _id: <string> }');
  assert.ok(seen.length > 0, 'the work sent filtered commands');
  return seen.length;
}

before(async () => {
  svc = await startTestService({ worker: false });
  client = new MongoClient(svc.config.MONGODB_URI, { monitorCommands: true });
  client.on('commandStarted', (e) => {
    const collection = String(e.command[e.commandName] ?? '');
    for (const filter of filtersOf(e)) seen.push({ command: e.commandName, collection, filter });
  });
  await client.connect();
  stores = createStores(client.db(svc.config.MONGODB_DB), svc.config);
});
after(async () => {
  await client?.close();
  await svc?.close();
});

const page = (jobId: string, body: string, fetchedAt = new Date().toISOString()) => ({
  tenantId: svc.tenantId,
  jobId,
  pageId: randomUUID(),
  url: 'https://shop.test/item/1',
  finalUrl: 'https://shop.test/item/1',
  status: 200,
  headers: { 'content-type': 'text/html' },
  contentType: 'text/html',
  fetchMode: 'static' as const,
  body,
  bytes: body.length,
  fetchedAt,
});

describe('the hot paths read and write by _id alone', { concurrency: 1 }, () => {
  test('page store: a new page, the same body fetched again by another process, the cache, a job page, the sweep', async () => {
    const body = `<html><body>${'x'.repeat(5000)}${randomUUID()}</body></html>`;
    const first = page('job_a', body, '2026-01-02T10:00:00.000Z');
    await assertKeyed(() => stores.pages.save(first));
    // Another worker process (its own PageStore: it has not seen the body today) stores the same body.
    const other = createStores(client.db(svc.config.MONGODB_DB), svc.config);
    const again = page('job_b', body);
    await assertKeyed(() => other.pages.save(again));
    await assertKeyed(() => other.pages.cached(svc.tenantId, again.url, 'auto', 86_400_000));
    const meta = await stores.pages.ofJob(svc.tenantId, 'job_a', first.pageId);
    assert.ok(meta);
    // A third process reuses the page (from the cache): the body is marked used today.
    const third = createStores(client.db(svc.config.MONGODB_DB), svc.config);
    await assertKeyed(() => third.pages.reuse(svc.tenantId, 'job_c', randomUUID(), meta));
    // The first page's day is swept: its record goes, the body (used again today) and the pointer stay.
    const bodyRef = { id: meta.body_id, chunks: meta.chunks };
    const refs = { record: `job_a:${first.pageId}`, latest: 'x', body: bodyRef };
    await assertKeyed(() => stores.pages.expire(refs, '2026-01-02'));
    assert.equal(await stores.pages.ofJob(svc.tenantId, 'job_a', first.pageId), null);
    assert.equal((await stores.pages.ofJob(svc.tenantId, 'job_b', again.pageId))?.body, body);
    // Swept on a day after its last use, the body goes.
    await assertKeyed(() => stores.pages.expire({ record: 'none', body: bodyRef }, '2999-01-01'));
    assert.equal(await stores.pages.ofJob(svc.tenantId, 'job_b', again.pageId), null);
  });

  test('job log, job, results and the job list', async () => {
    const jobId = `job_${randomUUID().replaceAll('-', '')}`;
    const log = jobLog(jobId, svc.tenantId);
    await assertKeyed(() =>
      stores.events.append([
        log.created(),
        log.started(),
        log.completed('https://shop.test/a', { title: 'a' }),
        log.completed('https://shop.test/b', { title: 'b' }),
      ]),
    );
    await assertKeyed(async () => {
      const job = await stores.jobs.get(svc.tenantId, jobId);
      assert.equal(job?.page_count, 2);
      assert.equal((await stores.jobs.results(job!)).length, 2);
      assert.equal((await stores.events.list(jobId)).length, 4);
      await stores.jobs.nextTenantSeq(svc.tenantId, jobId);
      await stores.jobs.list(svc.tenantId, 10, 0);
      // Filtered: each job read by its id while the tenant's list is walked.
      const running = await stores.jobs.list(svc.tenantId, 10, 0, { type: 'crawl', status: 'running' });
      assert.deepEqual(
        running.map((j) => j.id),
        [jobId],
      );
    });
  });

  test("a crawl's seen-set: marked once by the page that queued it, each job's its own, the set dropped after its job", async () => {
    const db = client.db(svc.config.MONGODB_DB);
    const seenSets = new CrawlUrlStore(db);
    const ended = `job_${randomUUID().replaceAll('-', '')}`;
    const running = `job_${randomUUID().replaceAll('-', '')}`;
    let before = new Set<string>();
    await assertKeyed(async () => {
      before = await seenSets.mark(ended, 1, [
        'https://shop.test/a',
        'https://shop.test/b',
        'https://shop.test/a',
      ]);
      // Another page of the job finds both marked; a URL is marked by its first page; another job has its own set.
      assert.deepEqual(
        [...(await seenSets.mark(ended, 2, ['https://shop.test/b', 'https://shop.test/c']))],
        ['https://shop.test/b'],
      );
      assert.equal(await seenSets.markedBy(ended, 'https://shop.test/b'), 1);
      assert.equal(await seenSets.markedBy(ended, 'https://shop.test/c'), 2);
      assert.equal(await seenSets.markedBy(ended, 'https://shop.test/d'), null);
      assert.equal((await seenSets.mark(running, 1, ['https://shop.test/a'])).size, 0);
    });
    assert.equal(before.size, 0);
    const endedLog = jobLog(ended, svc.tenantId);
    const runningLog = jobLog(running, svc.tenantId);
    await stores.events.append([endedLog.created(), endedLog.started(), endedLog.jobCompleted()]);
    await stores.events.append([runningLog.created(), runningLog.started()]);
    const names = async () => (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    // Within the grace the ended job's set stays; after it, only the running job's set is left.
    assert.deepEqual(await seenSets.sweepEnded(60_000), { dropped: 0, kept: 2 });
    let result = { dropped: 0, kept: 0 };
    await assertKeyed(async () => {
      result = await seenSets.sweepEnded(0);
    });
    assert.deepEqual(result, { dropped: 1, kept: 1 });
    assert.ok(!(await names()).includes(seenSetName(ended)), "the ended crawl's set is gone");
    assert.ok((await names()).includes(seenSetName(running)), "the running crawl's set stays");
  });

  test("learned extractors: a template's assignment, lease, asks, listing and forgetting its scope", async () => {
    const key = { tenantId: svc.tenantId, scope: 'site:keyed', schemaHash: 'h', urlShape: 'shop.test/p/:v' };
    const sketch = 'a'.repeat(64);
    let template: string | null = null;
    await assertKeyed(async () => {
      template = await stores.learned.assign(key, sketch);
    });
    assert.ok(template);
    const tkey = { ...key, template };
    await assertKeyed(() => stores.learned.lease(tkey, sketch, 'page-1', 60_000));
    const record = await stores.learned.get(`${(await stores.learned.shape(key))?._id}:${template}`);
    assert.ok(record);
    await assertKeyed(async () => {
      // The job that last checked asks: the page is the extractor's, numbered and recorded.
      const asked = await stores.learned.ask({ ...record, checked_job: 'job_x' }, 'job_x', {
        node: 1,
        url: 'https://shop.test/p/1',
        depth: 1,
        parentUrl: null,
        pageId: 'page-2',
        seq: 3,
        source: 'learned_extractor',
        values: {},
      });
      assert.equal(asked.check, false);
    });
    await assertKeyed(async () => {
      const listed = await stores.learned.listForScope(svc.tenantId, key.scope, { limit: 10, offset: 0 });
      assert.equal(listed.total, 1);
    });
    await assertKeyed(async () =>
      assert.equal(await stores.learned.deleteForScope(svc.tenantId, key.scope), 1),
    );
    assert.equal(await stores.learned.get(record._id), null);
    // Learned again, the shape's next template has a new id: nothing of the forgotten one is met again.
    const next = await stores.learned.assign(key, sketch);
    assert.ok(next && next !== template, `${next} after ${template}`);
  });

  test("a tenant's saved webhooks (read for every job it starts), API keys and model keys", async () => {
    const tenant = await svc.newTenant(`keyed-${randomUUID()}`);
    const input = { name: 'hook', url: 'https://hooks.test/a', is_active: true };
    await assertKeyed(async () => {
      const doc = await stores.webhooks.create(tenant.tenantId, input);
      assert.ok(doc);
      assert.deepEqual(
        (await stores.webhooks.list(tenant.tenantId)).map((w) => w.name),
        ['hook'],
      );
      assert.equal(await stores.webhooks.create(tenant.tenantId, input), null, 'a name is unique per tenant');
      assert.equal(await stores.webhooks.delete(tenant.tenantId, doc._id), true);
      assert.deepEqual(await stores.webhooks.list(tenant.tenantId), []);
    });
    await assertKeyed(async () => {
      const { key, doc } = await stores.tenants.createKey(tenant.tenantId, 'second');
      assert.equal((await stores.tenants.findByKey(key))?.tenant._id, tenant.tenantId);
      assert.deepEqual(
        (await stores.tenants.listKeys(tenant.tenantId)).map((k) => k.name),
        ['test', 'second'],
      );
      assert.equal(await stores.tenants.setKeyApiVersion(svc.tenantId, doc.id, 'refyne'), false, 'not ours');
      assert.equal(await stores.tenants.deleteKey(svc.tenantId, doc.id), false, 'not ours');
      assert.equal(await stores.tenants.setKeyApiVersion(tenant.tenantId, doc.id, 'refyne'), true);
      assert.equal(await stores.tenants.deleteKey(tenant.tenantId, doc.id), true);
      assert.equal(await stores.tenants.findByKey(key), null);
    });
    await assertKeyed(async () => {
      await stores.llm.putKey(tenant.tenantId, { provider: 'openai', api_key: 'sk-x', is_enabled: true });
      const [listed] = await stores.llm.listKeys(tenant.tenantId);
      assert.equal(listed?.provider, 'openai');
      assert.equal(await stores.llm.deleteKeyByIdOrProvider(tenant.tenantId, listed.id), true);
      assert.deepEqual(await stores.llm.listKeys(tenant.tenantId), []);
    });
  });

  test("a site session's login: two logins from one version keep one result", async () => {
    const site = { id: `site_${randomUUID().slice(0, 8)}`, url: 'https://members.test/' };
    await stores.sessions.put(svc.tenantId, site, {
      cookies: [{ name: 'sid', value: 'old', path: '/', http_only: true }],
      headers: {},
      secrets: {},
      login: null,
      logged_out: null,
    });
    const opened = await stores.sessions.open(svc.tenantId, site.id);
    assert.ok(opened);
    const cookie = (value: string) => [{ name: 'sid', value, path: '/', http_only: true }];
    await assertKeyed(async () => {
      const [a, b] = await Promise.all([
        stores.sessions.loggedIn(opened, cookie('a')),
        stores.sessions.loggedIn(opened, cookie('b')),
      ]);
      assert.equal([a, b].filter((r) => r !== null).length, 1);
      const kept = (a ?? b)?.cookies[0]?.value;
      assert.equal((await stores.sessions.open(svc.tenantId, site.id))?.cookies[0]?.value, kept);
    });
  });
});

test('keys and webhooks stored before their tenant lists are listed after the one-time migration', async () => {
  const db = client.db(svc.config.MONGODB_DB);
  const tenantId = `ten_${randomUUID().replaceAll('-', '')}`;
  const now = new Date().toISOString();
  await db.collection(COLLECTIONS.apiKeys).insertOne({
    _id: `old-${randomUUID()}` as never,
    id: 'key_old',
    tenant_id: tenantId,
    name: 'old',
    prefix: 'sk_old',
    created_at: now,
    last_used_at: null,
  });
  await db.collection(COLLECTIONS.webhooks).insertOne({
    _id: `wh_old${randomUUID().replaceAll('-', '')}` as never,
    tenant_id: tenantId,
    name: 'old',
    url: 'https://hooks.test/old',
    sealed_secret: null,
    events: null,
    headers: null,
    is_active: true,
    created_at: now,
    updated_at: now,
  });
  assert.deepEqual(await stores.tenants.listKeys(tenantId), []);
  await db.collection(COLLECTIONS.migrations).deleteOne({ _id: 'tenant-lists' as never });
  await ensureIndexes(db);
  assert.deepEqual(
    (await stores.tenants.listKeys(tenantId)).map((k) => k.id),
    ['key_old'],
  );
  assert.deepEqual(
    (await stores.webhooks.list(tenantId)).map((w) => w.name),
    ['old'],
  );
});

test('several processes starting at once on a new database all ensure its indexes and migrations', async () => {
  // One fresh database each round: the migrations' upserts race only while their documents are missing.
  for (let round = 0; round < 8; round++) {
    const db = client.db(`starts_${randomUUID().replaceAll('-', '').slice(0, 12)}`);
    const key = { _id: `k-${round}`, id: `key_${round}`, tenant_id: 'ten_many', name: 'k', prefix: 'sk_k' };
    await db.collection(COLLECTIONS.apiKeys).insertOne(key as never);
    await Promise.all(Array.from({ length: 6 }, () => ensureIndexes(db)));
    assert.ok(await db.collection(COLLECTIONS.migrations).findOne({ _id: 'tenant-lists' as never }));
    assert.deepEqual(
      (await db.collection(COLLECTIONS.apiKeyIndex).findOne({ _id: 'ten_many' as never }))?.keys,
      { [`key_${round}`]: `k-${round}` },
    );
    await db.dropDatabase();
  }
});
