// Inserts from concurrent callers go as one insertMany on the real document store, and each caller learns
// whether its own document went in or was there already (a retried event, a body stored before).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type Db, MongoClient } from 'mongodb';
import { InsertBatches, ReplaceBatches } from '../../shared/store/insert-batches.js';
import { type InfraHandle, useInfra } from '../support/service.js';

let infra: InfraHandle;
let client: MongoClient;
let db: Db;
const inserts: number[] = [];
const updates: number[] = [];

before(async () => {
  infra = await useInfra();
  client = new MongoClient(infra.mongoUri, { monitorCommands: true });
  await client.connect();
  db = client.db(`test_batches_${randomUUID().slice(0, 8)}`);
  client.on('commandStarted', (e) => {
    if (e.commandName === 'insert') inserts.push((e.command.documents as unknown[]).length);
    if (e.commandName === 'update') updates.push((e.command.updates as unknown[]).length);
  });
});
after(async () => {
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
  await infra?.stop();
});

type Doc = { _id: string; n: number };

test('inserts made together go in one command; each caller hears of its own document', async () => {
  const col = db.collection<Doc>('batched');
  await col.insertOne({ _id: 'there', n: 0 });
  const batches = new InsertBatches<Doc>(() => col);
  inserts.length = 0;
  const results = await Promise.all([
    batches.insert({ _id: 'a', n: 1 }),
    batches.insert({ _id: 'there', n: 2 }),
    batches.insert({ _id: 'b', n: 3 }),
    batches.insert({ _id: 'a', n: 4 }),
  ]);
  assert.deepEqual(results, [true, false, true, false]);
  assert.deepEqual(inserts, [4]);
  // What was stored first stays.
  assert.deepEqual(await col.find({}).sort({ _id: 1 }).toArray(), [
    { _id: 'a', n: 1 },
    { _id: 'b', n: 3 },
    { _id: 'there', n: 0 },
  ]);
});

test('documents that come while an insert is on its way follow it together', async () => {
  const col = db.collection<Doc>('following');
  const batches = new InsertBatches<Doc>(() => col);
  inserts.length = 0;
  const first = batches.insert({ _id: 'first', n: 0 });
  await new Promise((r) => setImmediate(r)); // the first is on its way
  const rest = Array.from({ length: 5 }, (_, i) => batches.insert({ _id: `next${i}`, n: i }));
  assert.deepEqual(await Promise.all([first, ...rest]), [true, true, true, true, true, true]);
  assert.deepEqual(inserts, [1, 5]);
  assert.equal(await col.countDocuments(), 6);
});

test('replacements made together go in one command: a stored document is replaced, a new one inserted', async () => {
  const col = db.collection<Doc>('replaced');
  await col.insertOne({ _id: 'old', n: 0 });
  const batches = new ReplaceBatches<Doc>(() => col);
  updates.length = 0;
  await Promise.all([batches.replace({ _id: 'old', n: 1 }), batches.replace({ _id: 'new', n: 2 })]);
  assert.deepEqual(updates, [2]);
  assert.deepEqual(await col.find({}).sort({ _id: 1 }).toArray(), [
    { _id: 'new', n: 2 },
    { _id: 'old', n: 1 },
  ]);
  await batches.replace({ _id: 'old', n: 3 });
  assert.deepEqual(await col.findOne({ _id: 'old' }), { _id: 'old', n: 3 });
});
