// The event log and its projector on FerretDB: a retried write keeps what was stored first, and pages
// appended concurrently by several processes (out of seq order) all reach the job and its results.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { JobEvent } from '../../shared/events.js';
import { EventStore, eventKey } from '../../shared/store/event-store.js';
import { JobProjector } from '../../shared/store/job-projector.js';
import { COLLECTIONS } from '../../shared/store/mongo.js';
import { RESULTS_PER_CHUNK, resultChunkKey } from '../../shared/store/read-models.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => {
  await svc?.close();
});

type PageCompleted = Extract<JobEvent, { type: 'page.completed' }>;
const extracted = (event: JobEvent) => (event as PageCompleted).data.data;
const newJobId = () => `job_${randomUUID().replaceAll('-', '')}`;

async function resultData(jobId: string, seq: number): Promise<unknown> {
  const chunk = await svc.mongo.db
    .collection<{ _id: string; pages: Record<string, { data: unknown }> }>(COLLECTIONS.results)
    .findOne({ _id: resultChunkKey(jobId, Math.floor(seq / RESULTS_PER_CHUNK)) });
  return chunk?.pages[String(seq)]?.data;
}

describe('EventStore', () => {
  test('an event written again (a retried attempt with other data) keeps the stored one, in the log and the results', async () => {
    const events = svc.deps.events;
    const jobId = newJobId();
    const log = jobLog(jobId, svc.tenantId);
    await events.append([log.created(), log.started()]);
    // The first attempt stored its event, then its worker died before projecting it.
    const first = log.completed('https://example.com/a', { title: 'first attempt' }, 0);
    await svc.mongo.db
      .collection(COLLECTIONS.events)
      .insertOne({ _id: eventKey(jobId, first.seq) as never, ...first });
    const again = {
      ...first,
      data: { ...(first as PageCompleted).data, data: { title: 'second attempt' } },
    } as JobEvent;
    await events.append([again]);

    const stored = await events.get(jobId, first.seq);
    assert.deepEqual(stored && extracted(stored), { title: 'first attempt' });
    assert.deepEqual(await resultData(jobId, first.seq), { title: 'first attempt' });
    // A second process, with nothing cached, projects the same.
    const other = new EventStore(svc.mongo.db);
    await other.append([again]);
    assert.deepEqual(await resultData(jobId, first.seq), { title: 'first attempt' });
    assert.equal((await other.project(jobId))?.page_count, 1);
  });

  test('pages appended at once by two processes, out of seq order, all reach the job and its results', async () => {
    const processes = [svc.deps.events, new EventStore(svc.mongo.db)];
    const jobId = newJobId();
    const log = jobLog(jobId, svc.tenantId);
    await processes[0]?.append([log.created(), log.started()]);
    const pages = Array.from({ length: 40 }, (_, i) => log.completed(`https://example.com/p${i}`, { i }, i));
    // Later seqs first, alternating processes, all in flight together.
    await Promise.all(
      [...pages].reverse().map((event, i) => processes[i % 2]?.append([event]) ?? Promise.resolve()),
    );
    const job = await svc.mongo.db.collection(COLLECTIONS.jobs).findOne({ _id: jobId as never });
    assert.equal(job?.page_count, pages.length);
    assert.equal(job?.last_seq, pages.at(-1)?.seq);
    for (const page of pages) assert.deepEqual(await resultData(jobId, page.seq), extracted(page));
  });

  test('deferred appends are stored at once and projected together shortly after; the job ends up complete', async () => {
    const events = svc.deps.events;
    const jobId = newJobId();
    const log = jobLog(jobId, svc.tenantId);
    await events.append([log.created(), log.started()]);
    const errors: unknown[] = [];
    const pages = Array.from({ length: 12 }, (_, i) => log.completed(`https://example.com/d${i}`, { i }, i));
    await Promise.all(pages.map((page) => events.appendDeferred([page], (err) => errors.push(err))));
    for (const page of pages) assert.ok(await events.get(jobId, page.seq), `seq ${page.seq} is in the log`);
    const jobs = svc.mongo.db.collection(COLLECTIONS.jobs);
    const deadline = Date.now() + 5000;
    while ((await jobs.findOne({ _id: jobId as never }))?.page_count !== pages.length) {
      assert.ok(Date.now() < deadline, 'the deferred projection ran');
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const page of pages) assert.deepEqual(await resultData(jobId, page.seq), extracted(page));
    await events.append([log.jobCompleted()]);
    const job = await jobs.findOne({ _id: jobId as never });
    assert.equal(job?.status, 'completed');
    assert.deepEqual(errors, []);
  });

  test('a page written past a gap in the log is applied from hand once the gap fills, not read back', async () => {
    const store = new EventStore(svc.mongo.db);
    const reads: number[] = [];
    const get = store.get.bind(store);
    store.get = (jobId: string, seq: number) => {
      reads.push(seq);
      return get(jobId, seq);
    };
    const projector = new JobProjector(svc.mongo.db, store);
    const jobId = newJobId();
    const log = jobLog(jobId, svc.tenantId);
    const [created, started, first, second] = [
      log.created(),
      log.started(),
      log.completed('https://example.com/g1', { i: 1 }, 1),
      log.completed('https://example.com/g2', { i: 2 }, 2),
    ] as [JobEvent, JobEvent, JobEvent, JobEvent];
    const write = (event: JobEvent) =>
      svc.mongo.db
        .collection(COLLECTIONS.events)
        .insertOne({ _id: eventKey(jobId, event.seq) as never, ...event });
    for (const event of [created, started, second]) await write(event);
    await projector.project(jobId, [created, started]);
    // The later page ends first: its seq waits behind the earlier one's, still in flight.
    assert.equal((await projector.project(jobId, [second]))?.last_seq, started.seq);
    await write(first);
    reads.length = 0;
    const job = await projector.project(jobId, [first]);
    assert.equal(job?.last_seq, second.seq);
    assert.equal(job?.page_count, 2);
    // Only the seq after the last one in hand is looked for (someone else may have written it).
    assert.deepEqual(reads, [second.seq + 1]);
    assert.deepEqual(await resultData(jobId, second.seq), { i: 2 });
  });

  test("past the events in hand one seq is probed, not a batch of four; nothing past a job's end", async () => {
    const store = new EventStore(svc.mongo.db);
    const jobId = newJobId();
    const log = jobLog(jobId, svc.tenantId);
    const events = [
      log.created('extract'),
      log.started(),
      log.completed('https://example.com/p', { i: 1 }),
      log.jobCompleted(),
    ];
    for (const event of events)
      await svc.mongo.db
        .collection(COLLECTIONS.events)
        .insertOne({ _id: eventKey(jobId, event.seq) as never, ...event });
    const reads: number[] = [];
    const get = store.get.bind(store);
    store.get = (id: string, seq: number) => {
      reads.push(seq);
      return get(id, seq);
    };
    // As a one-page job's activity projects: job.created in the document, job.started only in the log, the
    // page's result and job.completed in hand. The job's end holds its last seq: no probe past it.
    const [created, started, page, done] = events as [JobEvent, JobEvent, JobEvent, JobEvent];
    const listed = await store.list(jobId, 0, 1000, new Map([page, done].map((e) => [e.seq, e])));
    assert.deepEqual(
      listed.map((e) => e.seq),
      [started.seq, page.seq, done.seq],
    );
    assert.deepEqual(reads, [started.seq]);
    // With only the page's result in hand, the one seq past it is probed (and found: the job's end).
    reads.length = 0;
    const upToPage = await store.list(jobId, started.seq, 1000, new Map([[page.seq, page]]));
    assert.deepEqual(
      upToPage.map((e) => e.seq),
      [page.seq, done.seq],
    );
    assert.deepEqual(reads, [done.seq]);
    // Its creator's job.created in hand: the job's workflow projects what follows, so no probe.
    reads.length = 0;
    assert.deepEqual(
      (await store.list(jobId, -1, 1000, new Map([[created.seq, created]]))).map((e) => e.seq),
      [created.seq],
    );
    assert.deepEqual(reads, []);
  });
});
