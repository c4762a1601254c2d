// The learned extractors' per-page state on an in-memory database: the pages a verified extractor answered
// are numbered from blocks a process takes at once (one counter write for many pages while they come fast,
// one a page when they come slowly), a check still falls once every `checkEvery` numbers, a passed check
// forgets the pages numbered further than ANSWERS_KEPT_BEHIND before it in one command, and a failed check
// re-does every page answered since then (pages run at once are numbered out of their order).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Db } from 'mongodb';
import { memoryDb } from '../../bench/real/memory-db.js';
import {
  ANSWERS_KEPT_BEHIND,
  type AnsweredPage,
  HeldAnswers,
  LearnedExtractorStore,
  type TemplateRecord,
} from '../../shared/store/learned-extractors.js';
import { COLLECTIONS } from '../../shared/store/mongo.js';

const CHECK_EVERY = 10;
const KEY = { tenantId: 't1', scope: 'job:j1', schemaHash: 'h', urlShape: 'shop.test/p/:v' };

/** The memory database, with each collection's calls counted by method. */
function countedDb() {
  const memory = memoryDb();
  const calls: Record<string, number> = {};
  const db = {
    collection(name: string) {
      const col = memory.db.collection(name) as unknown as Record<string, (...a: unknown[]) => unknown>;
      return new Proxy(col, {
        get(target, method: string) {
          const fn = target[method];
          if (typeof fn !== 'function') return fn;
          return (...args: unknown[]) => {
            calls[`${method} ${name}`] = (calls[`${method} ${name}`] ?? 0) + 1;
            return fn.apply(target, args);
          };
        },
      });
    },
  } as unknown as Db;
  return { db, calls, memory };
}

async function verifiedTemplate(store: LearnedExtractorStore, key = KEY): Promise<TemplateRecord> {
  const template = await store.assign(key, 'a'.repeat(64));
  assert.ok(template);
  const id = `${(await store.shape(key))?._id}:${template}`;
  await store.lease({ ...key, template }, 'a'.repeat(64), 'lease', 60_000);
  const record = await store.get(id);
  assert.ok(record);
  const verified: TemplateRecord = {
    ...record,
    status: 'verified',
    fields: { name: [{ selector: 'h1', transform: { kind: 'exact' } }] },
    checked_job: 'j1',
  };
  await store.col.replaceOne({ _id: id }, verified);
  return verified;
}

const pageOf = (i: number): AnsweredPage => ({
  node: i,
  url: `https://shop.test/p/${i}`,
  depth: 1,
  parentUrl: null,
  pageId: `page-${i}`,
  seq: i,
  source: 'learned_extractor',
  values: { learned_extractor: 1 },
});

const pageIds = (from: number, to: number) =>
  new Set(Array.from({ length: to - from + 1 }, (_, i) => `page-${from + i}`));

describe('learned extractors: answered pages', () => {
  test('pages asked fast take their numbers in blocks; a check still falls once every checkEvery numbers', async () => {
    const { db, calls } = countedDb();
    const store = new LearnedExtractorStore(db, CHECK_EVERY);
    const record = await verifiedTemplate(store);
    const asked = [];
    for (let i = 1; i <= 60; i++) asked.push(await store.ask(record, 'j1', pageOf(i)));
    // Blocks of 1, 2, 4, 8, then 10 (checkEvery): 1 + 2 + 4 + 8 + 10 × 4 + 5 of the next.
    assert.deepEqual(
      asked.map((a) => a.n),
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    assert.equal(calls[`findOneAndUpdate ${COLLECTIONS.learnedCounters}`], 9);
    // The first number of each block that holds a multiple of 10 is a check: 8 (10), 16 (20), 26, 36, 46, 56.
    assert.deepEqual(
      asked.filter((a) => a.check).map((a) => a.n),
      [8, 16, 26, 36, 46, 56],
    );
    // Every other page is recorded for re-doing.
    assert.equal(calls[`insertOne ${COLLECTIONS.learnedAnswers}`], 54);
  });

  test('a page asked after its block outlived a second takes a block of one number', async () => {
    const { db, calls } = countedDb();
    const store = new LearnedExtractorStore(db, CHECK_EVERY);
    const record = await verifiedTemplate(store);
    await store.ask(record, 'j1', pageOf(1));
    await store.ask(record, 'j1', pageOf(2)); // a block of two: 2, 3
    await new Promise((r) => setTimeout(r, 1_050));
    const late = await store.ask(record, 'j1', pageOf(3));
    const next = await store.ask(record, 'j1', pageOf(4));
    // Number 3 was left unused; the late page took 4 alone, the next a block of two (5, 6).
    assert.equal(late.n, 4);
    assert.equal(next.n, 5);
    assert.equal(calls[`findOneAndUpdate ${COLLECTIONS.learnedCounters}`], 4);
  });

  test('a number another process holds too (a lost count) is given up for a fresh one', async () => {
    const { db, memory } = countedDb();
    const [a, b] = [new LearnedExtractorStore(db, CHECK_EVERY), new LearnedExtractorStore(db, CHECK_EVERY)];
    const record = await verifiedTemplate(a);
    assert.equal((await a.ask(record, 'j1', pageOf(1))).n, 1);
    // As if process a's count were lost: process b is handed number 1 as well.
    await db.collection<{ _id: string }>(COLLECTIONS.learnedCounters).deleteOne({ _id: `${record._id}:0` });
    const asked = await b.ask(record, 'j1', pageOf(2));
    assert.deepEqual(asked, { check: false, n: 2 });
    assert.equal(memory.sizes()[COLLECTIONS.learnedAnswers], 2, 'both pages are kept for re-doing');
  });

  test("a crawl batch's answered pages are written together when it ends; those a failed check missed are re-done once", async () => {
    const { db, calls, memory } = countedDb();
    const store = new LearnedExtractorStore(db, CHECK_EVERY);
    const record = await verifiedTemplate(store);
    const key = { ...KEY, template: record.template };
    // One batch's pages, held: nothing is written until it ends, then one insert for all of them.
    const batch = new HeldAnswers();
    for (let i = 1; i <= 6; i++) assert.equal((await store.ask(record, 'j1', pageOf(i), batch)).check, false);
    assert.equal(memory.sizes()[COLLECTIONS.learnedAnswers] ?? 0, 0);
    assert.deepEqual(await store.recordHeld(batch, pageIds(1, 6)), []);
    assert.equal(calls[`insertMany ${COLLECTIONS.learnedAnswers}`], 1);
    assert.equal(memory.sizes()[COLLECTIONS.learnedAnswers], 6);

    // Another batch holds pages 7 (a check) and 8-9 when the check fails: the check finds pages 1-6, written;
    // the batch's, written after, are its own to re-do.
    const late = new HeldAnswers();
    const asked = [];
    for (let i = 7; i <= 9; i++) asked.push({ i, ...(await store.ask(record, 'j1', pageOf(i), late)) });
    const check = asked.find((a) => a.check);
    assert.ok(check, JSON.stringify(asked));
    const failed = await store.learn(key, {
      generation: 0,
      url: 'u',
      jobId: 'j1',
      check: true,
      kept: { name: [] },
      fresh: { name: [] },
      pageId: `page-${check.i}`,
      checkN: check.n,
    });
    assert.equal(failed.kind, 'invalidated');
    const byCheck = failed.kind === 'invalidated' ? failed.redo.map((p) => p.pageId) : [];
    assert.deepEqual(byCheck, ['page-1', 'page-2', 'page-3', 'page-4', 'page-5', 'page-6']);
    const byBatch = (await store.recordHeld(late, pageIds(7, 9))).map((p) => p.pageId);
    assert.deepEqual(
      byBatch,
      asked.filter((a) => !a.check).map((a) => `page-${a.i}`),
    );
    assert.equal(memory.sizes()[COLLECTIONS.learnedAnswers], 0, 'every record claimed once');
  });

  test("a batch's pages of two templates go in one insert; only those of the template whose check failed are re-done", async () => {
    const { db, calls, memory } = countedDb();
    const store = new LearnedExtractorStore(db, CHECK_EVERY);
    const other = { ...KEY, urlShape: 'shop.test/list/:v' };
    const [item, list] = [await verifiedTemplate(store), await verifiedTemplate(store, other)];
    const batch = new HeldAnswers();
    for (let i = 1; i <= 3; i++) await store.ask(item, 'j1', pageOf(i), batch);
    for (let i = 4; i <= 6; i++) await store.ask(list, 'j1', pageOf(i), batch);
    // The item template's check fails (another page, numbered after the batch's) before the batch ends.
    const check = await store.ask(item, 'j1', pageOf(7));
    const failed = await store.learn(
      { ...KEY, template: item.template },
      {
        generation: 0,
        url: 'u',
        jobId: 'j1',
        check: true,
        kept: { name: [] },
        fresh: { name: [] },
        pageId: 'page-7',
        checkN: check.n,
      },
    );
    assert.equal(failed.kind, 'invalidated');
    const redo = (await store.recordHeld(batch, pageIds(1, 6))).map((p) => p.pageId).sort();
    assert.deepEqual(redo, ['page-1', 'page-2', 'page-3']);
    assert.equal(calls[`insertMany ${COLLECTIONS.learnedAnswers}`], 1);
    // The list template's pages stay recorded, to be re-done if its own check fails.
    assert.equal(memory.sizes()[COLLECTIONS.learnedAnswers], 3);
  });

  test('held pages numbered further before a check that passed meanwhile than it keeps are not kept', async () => {
    const { db, memory } = countedDb();
    const store = new LearnedExtractorStore(db, CHECK_EVERY);
    const record = await verifiedTemplate(store);
    const batch = new HeldAnswers();
    const pages = ANSWERS_KEPT_BEHIND + 3 * CHECK_EVERY;
    const asked = [];
    for (let i = 1; i <= pages; i++) asked.push({ i, ...(await store.ask(record, 'j1', pageOf(i), batch)) });
    const check = asked.filter((a) => a.check).at(-1);
    assert.ok(check && check.n > ANSWERS_KEPT_BEHIND, JSON.stringify(check));
    // The last check passes before the batch holding the others ends.
    const lesson = { generation: 0, url: 'u', jobId: 'j1', check: true, kept: record.fields };
    await store.learn(
      { ...KEY, template: record.template },
      { ...lesson, pageId: `page-${check.i}`, checkN: check.n },
    );
    assert.deepEqual(await store.recordHeld(batch, pageIds(1, pages)), []);
    const near = asked.filter((a) => !a.check && a.n > check.n - ANSWERS_KEPT_BEHIND).length;
    assert.ok(near < asked.filter((a) => !a.check).length, 'some were numbered further before it');
    assert.equal(memory.sizes()[COLLECTIONS.learnedAnswers], near, 'those near or after the check only');
  });

  test('held pages of a template forgotten meanwhile are neither kept nor re-done', async () => {
    const { db, memory } = countedDb();
    const store = new LearnedExtractorStore(db, CHECK_EVERY);
    const record = await verifiedTemplate(store);
    const batch = new HeldAnswers();
    for (let i = 1; i <= 3; i++) await store.ask(record, 'j1', pageOf(i), batch);
    assert.equal(await store.deleteForScope(KEY.tenantId, KEY.scope), 1);
    assert.deepEqual(await store.recordHeld(batch, pageIds(1, 3)), []);
    assert.equal(memory.sizes()[COLLECTIONS.learnedAnswers], 0);
  });

  test('a passed check forgets the pages numbered further before it than it keeps in one command; a failed one re-does those after them', async () => {
    const { db, calls, memory } = countedDb();
    const store = new LearnedExtractorStore(db, CHECK_EVERY);
    const record = await verifiedTemplate(store);
    const key = { ...KEY, template: record.template };
    const asked = [];
    const pages = ANSWERS_KEPT_BEHIND + 3 * CHECK_EVERY;
    for (let i = 1; i <= pages; i++) asked.push({ i, ...(await store.ask(record, 'j1', pageOf(i))) });
    const [first, second] = asked.filter((a) => a.check && a.n > ANSWERS_KEPT_BEHIND);
    assert.ok(first && second, JSON.stringify(asked));
    const lesson = { generation: 0, url: 'u', jobId: 'j1', check: true };
    const passed = await store.learn(key, {
      ...lesson,
      kept: record.fields,
      pageId: `page-${first.i}`,
      checkN: first.n,
    });
    assert.deepEqual(passed, { kind: 'checked' });
    assert.equal(calls[`bulkWrite ${COLLECTIONS.learnedAnswers}`], 1);
    const kept = memory.sizes()[COLLECTIONS.learnedAnswers];
    const behind = first.n - ANSWERS_KEPT_BEHIND;
    const stay = asked.filter((a) => !a.check && a.n > behind);
    assert.ok(stay.length < asked.filter((a) => !a.check).length);
    assert.equal(kept, stay.length, 'the pages near and after the passed check stay');

    const failed = await store.learn(key, {
      ...lesson,
      kept: { name: [] },
      fresh: { name: [] },
      pageId: `page-${second.i}`,
      checkN: second.n,
    });
    assert.equal(failed.kind, 'invalidated');
    const redo = failed.kind === 'invalidated' ? failed.redo.map((p) => p.pageId) : [];
    // Those answered since the pages kept behind the passed check: before the failed one, and after it (while
    // it was with the model).
    const since = stay.map((a) => `page-${a.i}`);
    assert.deepEqual(redo, since);
    assert.ok(asked.some((a) => !a.check && a.n > second.n));
  });
});
