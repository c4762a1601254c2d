// Extract benchmark: N extractions through the real API, worker, Temporal and FerretDB, with the fake model
// at zero latency, so the numbers are the service's own overhead.
//   npm run bench:extract -- [--requests 200] [--concurrency 1,10] [--warmup 20] [--preload 0] [--page-kb 100]
//                            [--floor true] [--rounds 1]
// After --warmup extracts (not counted: a cold worker's first jobs run unoptimised code), each concurrency in
// the list is a run of --requests extracts on the same stack, one after the other; each reports p50/p90/p99
// of latency and overhead (latency minus the fetch and model time the job recorded), extracts per second,
// CPU per extract of the bench process (API and worker run in it), FerretDB and Temporal, and the database
// commands per extract the API and the worker sent (by command and collection), which load does not change.
// With --floor (the default), each run is preceded by as many workflows of Temporal's floor (bench:temporal-
// floor's oneActivity: one empty activity, eagerly dispatched) on the same stack and at the same concurrency,
// and the extract's overhead p50 is reported against the floor's latency p50 of that same run (the goal:
// within 10 ms). --rounds N repeats the whole list, so floor and extracts alternate N times.
// --preload N first fills the stack with N finished copies of one real extract, through the stores
// (bench/preload.ts), so the run measures a service that has been in use.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { MongoClient } from 'mongodb';
import { createStores } from '../shared/store/index.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { startTestService } from '../test/support/service.js';
import { commandsPer, countCommands, snapshot } from './command-count.js';
import { extractItem, ITEM_PAGE, ITEM_PATH } from './extract-item.js';
import { preloadLike } from './preload.js';
import { cpuSince, sampleCpu } from './server-cpu.js';
import { startFloor } from './temporal-floor/floor.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '1,10' },
    preload: { type: 'string', default: '0' },
    warmup: { type: 'string', default: '20' },
    'page-kb': { type: 'string', default: '100' },
    floor: { type: 'string', default: 'true' },
    rounds: { type: 'string', default: '1' },
  },
});
const total = Number(values.requests);
const concurrencies = values.concurrency.split(',').map(Number);
if (concurrencies.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--concurrency: e.g. 1,10');
const preloadJobs = Number(values.preload);

const commands = countCommands();
// The bench is one tenant sending far more than the default 120 requests a minute.
const svc = await startTestService({
  env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', RATE_LIMIT_PER_MINUTE: '1000000' },
});
const site = await startFixtureSite();
site.route(ITEM_PATH, ITEM_PAGE);
const extractOnce = () => extractItem(svc, site.url);

let preload: { jobs: number; seconds: number } | null = null;
if (preloadJobs > 0) {
  const template = await extractOnce();
  if (template.statusCode !== 200) throw new Error(`the template extract failed: ${template.body}`);
  preload = await preloadLike(createStores(svc.mongo.db, svc.config), template.json().job_id, {
    tenantId: svc.tenantId,
    jobs: preloadJobs,
    pageBytes: Number(values['page-kb']) * 1024,
  });
}

/** The API's client is the service's; the worker's is the other one it connected. */
const clientNames = () =>
  new Map<MongoClient, string>(
    [...commands.keys()].map((c) => [
      c,
      c === svc.mongo.client ? 'api' : c === svc.worker?.mongo.client ? 'worker' : 'other',
    ]),
  );

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
};
const spread = (values: number[]) => ({ p50: pct(values, 50), p90: pct(values, 90), p99: pct(values, 99) });

/** One run: `total` extracts, `concurrency` at a time. */
async function run(concurrency: number) {
  const latencies: number[] = [];
  const overheads: number[] = [];
  let failures = 0;
  let next = 0;
  const commandsBefore = snapshot(commands);
  const cpuBefore = sampleCpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const res = await extractOnce();
        const elapsed = performance.now() - t0;
        latencies.push(elapsed);
        if (res.statusCode !== 200) {
          failures++;
          if (failures <= 3) process.stderr.write(`failed: ${res.statusCode} ${res.body.slice(0, 300)}\n`);
          continue;
        }
        // The service's own overhead: end to end minus the fetch and model time the job recorded.
        const meta = res.json().metadata as { fetch_duration_ms: number; extract_duration_ms: number };
        overheads.push(elapsed - meta.fetch_duration_ms - meta.extract_duration_ms);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSince(cpuBefore);
  return {
    concurrency,
    requests: total,
    failures,
    seconds: Number(seconds.toFixed(2)),
    extracts_per_second: Number((total / seconds).toFixed(1)),
    latency_ms: spread(latencies),
    overhead_ms: spread(overheads),
    cpu_ms_per_extract: Object.fromEntries(
      Object.entries(cpu).map(([k, ms]) => [k, Number((ms / total).toFixed(1))]),
    ),
    db_commands_per_extract: commandsPer(commands, commandsBefore, total, clientNames()),
  };
}

const floor = values.floor === 'true' ? await startFloor(svc.config.TEMPORAL_ADDRESS, 'bench-floor') : null;
for (let i = 0; i < Number(values.warmup); i++) await extractOnce();
await floor?.run('oneActivity', 1, Number(values.warmup));

const runs = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const concurrency of concurrencies) {
    const floorRun = await floor?.run('oneActivity', concurrency, total);
    const extracts = await run(concurrency);
    runs.push({
      ...extracts,
      ...(floorRun
        ? {
            temporal_floor: floorRun,
            overhead_p50_over_floor_p50_ms: extracts.overhead_ms.p50 - floorRun.latency_ms.p50,
          }
        : {}),
    });
  }
}
await floor?.stop();
const report = {
  date: new Date().toISOString(),
  load_average: loadavg().map((l) => Number(l.toFixed(1))),
  preload,
  runs,
  targets: { overhead_p50_over_floor_p50_ms: 10, extracts_per_second_at_10: 40 },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/extract-${new Date().toISOString().replaceAll(':', '-')}.json`,
  JSON.stringify(report),
);
await site.close();
await svc.close();
process.exit(0);
