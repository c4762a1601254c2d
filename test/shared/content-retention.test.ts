// The retention sweep of page contents on FerretDB: it deletes the contents of days past the retention, in
// bounded runs, and nothing else (events, job projections and results stay); an expired content read is a
// clear page failure.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { MongoClient } from 'mongodb';
import { CategorizedError } from '../../shared/errors.js';
import { type ContentDoc, ContentStore } from '../../shared/store/contents.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => {
  await svc?.close();
});

const DAY_MS = 86_400_000;
const content = (jobId: string, daysAgo: number): ContentDoc => ({
  _id: randomUUID(),
  job_id: jobId,
  kind: 'raw',
  url: 'https://example.com/',
  final_url: 'https://example.com/',
  content_type: 'text/html',
  status_code: 200,
  body: '<html><body>page</body></html>',
  created_at: new Date(Date.now() - daysAgo * DAY_MS).toISOString(),
});

test('the sweep deletes only contents older than the retention, in bounded runs, and leaves the job as it was', async () => {
  const contents = new ContentStore(svc.mongo.db);
  const jobId = `job_${randomUUID().replaceAll('-', '')}`;
  const log = jobLog(jobId, svc.tenantId);
  await svc.deps.events.append([
    log.created('extract', 'https://example.com/'),
    log.started(),
    log.completed('https://example.com/', { title: 'kept' }),
  ]);
  const old = [content(jobId, 45), content(jobId, 45), content(jobId, 31.5)];
  const recent = [content(jobId, 20), content(jobId, 0)];
  for (const doc of [...old, ...recent]) await contents.put(doc);
  // A retried write of the same content (an activity's second attempt) is numbered again: still one delete.
  await contents.put(old[0] as ContentDoc);

  const cutoff = new Date(Date.now() - 30 * DAY_MS);
  const first = await contents.sweepExpired(cutoff, 2);
  assert.equal(first.done, false, 'a run stops at its limit');
  let rest = await contents.sweepExpired(cutoff, 2);
  while (!rest.done) rest = await contents.sweepExpired(cutoff, 2);

  for (const doc of old) {
    await assert.rejects(contents.get(doc._id), (err: unknown) => {
      assert.ok(err instanceof CategorizedError);
      assert.equal(err.category, 'content_expired');
      assert.match(err.message, /no longer stored/);
      return true;
    });
  }
  for (const doc of recent) assert.equal((await contents.get(doc._id)).body, doc.body);
  const job = await svc.deps.jobs.get(svc.tenantId, jobId);
  assert.equal(job?.page_count, 1);
  assert.deepEqual(
    (await svc.deps.jobs.results(job as NonNullable<typeof job>)).map((r) => r.data),
    [{ title: 'kept' }],
  );
  assert.equal((await svc.deps.events.list(jobId)).length, 3);
  // Nothing older is left: a further run deletes nothing.
  assert.deepEqual(await contents.sweepExpired(cutoff), { deleted: 0, done: true });
});

test('contents stored before they were numbered are numbered once, then swept like the others', async () => {
  const db = svc.mongo.db.client.db(`${svc.mongo.db.databaseName}_legacy`);
  const contents = new ContentStore(db);
  const jobId = `job_${randomUUID().replaceAll('-', '')}`;
  // Written as the store wrote them before retention: no day number.
  const legacy = [content(jobId, 60), content(jobId, 40)];
  const recent = content(jobId, 1);
  await db.collection<ContentDoc>('contents').insertMany([...legacy, recent]);
  assert.equal(await contents.numberLegacy(), 3);
  assert.equal(await contents.numberLegacy(), 0, 'once per database');
  const swept = await contents.sweepExpired(new Date(Date.now() - 30 * DAY_MS));
  assert.deepEqual(swept, { deleted: 2, done: true });
  for (const doc of legacy) await assert.rejects(contents.get(doc._id));
  assert.equal((await contents.get(recent._id)).body, recent.body);
  await db.dropDatabase();
});

test("a store's first sweep reads each of its days but writes where it stopped once, not once a day", async () => {
  const client = new MongoClient(svc.config.MONGODB_URI, { monitorCommands: true });
  const writes: string[] = [];
  client.on('commandStarted', (e) => {
    if (e.commandName === 'update' && e.command.update === 'content_days')
      writes.push(JSON.stringify(e.command));
  });
  const db = client.db(`${svc.mongo.db.databaseName}_first_sweep`);
  try {
    const contents = new ContentStore(db);
    const jobId = `job_${randomUUID().replaceAll('-', '')}`;
    const old = content(jobId, 45);
    await contents.put(old);
    writes.length = 0;
    const swept = await contents.sweepExpired(new Date(Date.now() - 30 * DAY_MS));
    assert.deepEqual(swept, { deleted: 1, done: true });
    await assert.rejects(contents.get(old._id));
    // The day with contents: its swept count and the state past it; then the state at the cutoff, once.
    assert.equal(writes.filter((w) => w.includes('next_day')).length, 2, writes.join('\n'));
    assert.deepEqual(await contents.sweepExpired(new Date(Date.now() - 30 * DAY_MS)), {
      deleted: 0,
      done: true,
    });
  } finally {
    await db.dropDatabase();
    await client.close();
  }
});
