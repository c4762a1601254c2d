// The page store's retention on FerretDB: the day sweep deletes a page record of an expired day, but a body
// (or a tenant's latest fetch) that a newer page still uses stays until the day of its last use is swept.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { MongoClient } from 'mongodb';
import { ContentStore } from '../../shared/store/contents.js';
import { BODY_CHUNK_CHARS, type NewPage, PageStore } from '../../shared/store/pages.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => {
  await svc?.close();
});

const DAY_MS = 86_400_000;
const page = (jobId: string, daysAgo: number, body: string): NewPage => ({
  tenantId: 'tenant_a',
  jobId,
  pageId: randomUUID(),
  url: 'https://shop.example/item/1',
  finalUrl: 'https://shop.example/item/1',
  status: 200,
  headers: { 'content-type': 'text/html', etag: '"v1"' },
  contentType: 'text/html',
  fetchMode: 'static',
  body,
  bytes: body.length,
  fetchedAt: new Date(Date.now() - daysAgo * DAY_MS).toISOString(),
});

async function sweep(contents: ContentStore, cutoff: Date) {
  let run = await contents.sweepExpired(cutoff, 5);
  while (!run.done) run = await contents.sweepExpired(cutoff, 5);
}

test('a body shared by an expired and a live page is kept until its last use expires', async () => {
  const contents = new ContentStore(svc.mongo.db);
  const pages = new PageStore(svc.mongo.db, contents);
  // Larger than one chunk, so the body is stored in several documents.
  const body = `<html><body>${'x'.repeat(BODY_CHUNK_CHARS + 10)}</body></html>`;
  const old = page('job_old', 40, body);
  const recent = page('job_recent', 5, body);
  await pages.save(old);
  await pages.save(recent);
  // Another tenant's page with the same body is stored apart (no deduplication across tenants).
  const foreign = { ...page('job_other', 40, body), tenantId: 'tenant_b' };
  await pages.save(foreign);
  assert.equal(await pages.ofJob('tenant_a', 'job_other', foreign.pageId), null, "not another tenant's job");

  await sweep(contents, new Date(Date.now() - 30 * DAY_MS));
  assert.equal(await pages.ofJob('tenant_a', 'job_old', old.pageId), null, 'the old record is gone');
  const kept = await pages.ofJob('tenant_a', 'job_recent', recent.pageId);
  assert.equal(kept?.body, body, 'the shared body is whole');
  assert.equal(kept?.etag, '"v1"');
  assert.equal(
    await pages.ofJob('tenant_b', 'job_other', foreign.pageId),
    null,
    "tenant_b's old page is gone",
  );
  const cached = await pages.cached('tenant_a', 'https://shop.example/item/1/', 'auto', 10 * DAY_MS);
  assert.equal(cached?.fetched_at, recent.fetchedAt, 'the latest fetch (URL normalised) is kept');
  assert.equal(
    await pages.cached('tenant_a', recent.url, 'dynamic', 10 * DAY_MS),
    null,
    'not in another mode',
  );
  assert.equal(await pages.cached('tenant_b', recent.url, 'auto', 100 * DAY_MS), null, 'tenant_b: expired');

  await sweep(contents, new Date(Date.now() + DAY_MS));
  assert.equal(await pages.ofJob('tenant_a', 'job_recent', recent.pageId), null);
  for (const name of ['page_records', 'page_bodies', 'page_latest'])
    assert.equal(await svc.mongo.db.collection(name).countDocuments({}), 0, name);
});

test("a crawl batch's pages stored together: one command per collection and one block of day numbers", async () => {
  const client = new MongoClient(svc.config.MONGODB_URI, { monitorCommands: true });
  const sent: string[] = [];
  client.on('commandStarted', (e) => sent.push(`${e.commandName} ${e.command[e.commandName]}`));
  await client.connect();
  try {
    const db = client.db(svc.config.MONGODB_DB);
    const pages = new PageStore(db, new ContentStore(db));
    const batch = Array.from({ length: 12 }, (_, i) => ({
      ...page('job_batch', 0, `<html><body>item ${i}</body></html>`),
      url: `https://shop.example/item/${i}`,
    }));
    await pages.saveAll(batch);
    const count = (kind: string) => sent.filter((c) => c === kind).length;
    assert.equal(count('insert page_bodies'), 1, sent.join('\n'));
    assert.equal(count('insert page_records'), 1);
    assert.equal(count('update page_latest'), 1);
    assert.equal(count('insert content_index'), 1);
    assert.equal(count('findAndModify content_days'), 1);
    for (const p of batch)
      assert.equal((await pages.ofJob('tenant_a', 'job_batch', p.pageId))?.body, p.body, p.url);
  } finally {
    await client.close();
  }
});
