// Which filters FerretDB hands to SQLite (explain's filterPushdown) and what each costs on a collection of
// 2,000 documents of 40 KB, on its own FerretDB:  npx tsx bench/pushdown-probe.ts
import { MongoClient } from 'mongodb';
import { startInfra } from '../scripts/lib/stack.js';

const infra = await startInfra();
const client = new MongoClient(infra.mongoUri);
await client.connect();
const db = client.db('probe');
const col = db.collection<{ _id: string; day: string; job_id: string; data: string }>('probe');
const body = 'x'.repeat(40_000);
for (let i = 0; i < 2000; i += 200) {
  await col.insertMany(
    Array.from({ length: 200 }, (_, k) => ({
      _id: `t:${String(i + k).padStart(6, '0')}:0`,
      day: '2026-11-29',
      job_id: `job_${(i + k) % 50}`,
      data: body,
    })),
  );
}
const filters: Record<string, Record<string, unknown>> = {
  '_id equality': { _id: 't:000123:0' },
  '_id and another field': { _id: 't:000123:0', day: { $lt: '2026-11-30' } },
  '_id $in': { _id: { $in: ['t:000123:0', 't:000124:0'] } },
  '_id prefix range': { _id: { $gte: 't:000123:', $lt: 't:000124:' } },
  'job_id alone': { job_id: 'job_3' },
  'empty filter, limit 1': {},
};
const rows = [];
for (const [name, filter] of Object.entries(filters)) {
  const limit = name.startsWith('empty') ? 1 : 0;
  const explain = await db.command({ explain: { find: 'probe', filter, ...(limit ? { limit } : {}) } });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await col.find(filter, { limit }).toArray();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  rows.push({
    filter: name,
    filter_pushdown: explain.filterPushdown,
    limit_pushdown: explain.limitPushdown,
    median_ms: Number((times[2] ?? 0).toFixed(1)),
  });
}
const timed = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return Number((performance.now() - t).toFixed(1));
};
rows.push({
  filter: 'updateOne {_id, day: {$lt}} $set (once)',
  median_ms: await timed(() =>
    col.updateOne({ _id: 't:000123:0', day: { $lt: '2026-11-30' } }, { $set: { day: '2026-11-30' } }),
  ),
});
rows.push({
  filter: 'updateOne {_id} $max (once)',
  median_ms: await timed(() => col.updateOne({ _id: 't:000124:0' }, { $max: { day: '2026-11-30' } })),
});
process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
await client.close();
await infra.stop();
