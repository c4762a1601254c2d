// One waited extract's timeline: where its time goes between the API receiving it and answering, at
// concurrency 1 on the bench's stack (API and worker in this process, the fake model at zero latency).
//   npx tsx bench/extract-trace.ts [--requests 30] [--warmup 20]
// Each extract's steps, as milliseconds from the request: the database commands of the API's and the
// worker's clients (started → ended), the Temporal client's calls, the page's fetch from the fixture site,
// and the workflow's history events (their server time). Prints the median of each step's start and end
// over the extracts, in order, so the gaps between them show what the path waits for.
import { parseArgs } from 'node:util';
import { Worker } from '@temporalio/worker';
import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { MongoClient } from 'mongodb';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { startTestService } from '../test/support/service.js';
import { extractItem, ITEM_PAGE, ITEM_PATH } from './extract-item.js';
import { startFloor } from './temporal-floor/floor.js';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '30' }, warmup: { type: 'string', default: '20' } },
});

const now = () => performance.timeOrigin + performance.now();
interface Step {
  name: string;
  start: number;
  end: number;
}
let steps: Step[] = [];
const open = new Map<string, Step>();

// Every client connected from here on reports its commands' start and end.
const connect = MongoClient.prototype.connect;
const clients: MongoClient[] = [];
MongoClient.prototype.connect = function (this: MongoClient) {
  if (!clients.includes(this)) {
    clients.push(this);
    const n = clients.length;
    (this.options as { monitorCommands: boolean }).monitorCommands = true;
    this.on('commandStarted', (e: CommandStartedEvent) => {
      const step = {
        name: `db${n} ${e.commandName} ${String(e.command[e.commandName] ?? '')}`,
        start: now(),
        end: 0,
      };
      open.set(`${n}:${e.requestId}`, step);
      steps.push(step);
    });
    const done = (e: CommandSucceededEvent) => {
      const step = open.get(`${n}:${e.requestId}`);
      if (step) step.end = now();
      open.delete(`${n}:${e.requestId}`);
    };
    this.on('commandSucceeded', done);
    this.on('commandFailed', done as never);
  }
  return connect.call(this);
};

const timed = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
  const step = { name, start: now(), end: 0 };
  steps.push(step);
  try {
    return await f();
  } finally {
    step.end = now();
  }
};

// The worker's activities, timed from their function's entry to its return.
const create = Worker.create.bind(Worker);
Worker.create = ((options: Parameters<typeof create>[0]) => {
  const activities = Object.fromEntries(
    Object.entries(options.activities ?? {}).map(([name, f]) => [
      name,
      (...args: unknown[]) =>
        timed(`activity ${name}`, () => (f as (...a: unknown[]) => Promise<unknown>)(...args)),
    ]),
  );
  return create({ ...options, activities });
}) as never;

const svc = await startTestService({
  env: { LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000' },
});
const site = await startFixtureSite();
site.route(ITEM_PATH, (_req, res) => {
  const t = now();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ITEM_PAGE);
  steps.push({ name: 'site serves the page', start: t, end: now() });
});
const wf = svc.deps.temporal.workflow;
const start = wf.start.bind(wf);
wf.start = ((...args: Parameters<typeof start>) => timed('temporal start', () => start(...args))) as never;
const count = wf.count.bind(wf);
wf.count = ((q: string) => timed('temporal count', () => count(q))) as never;
const getHandle = wf.getHandle.bind(wf);
wf.getHandle = ((...args: Parameters<typeof getHandle>) => {
  const handle = getHandle(...args);
  const result = handle.result.bind(handle);
  handle.result = (() => timed('temporal result', () => result())) as never;
  return handle;
}) as never;

const extractOnce = () => extractItem(svc, site.url);

for (let i = 0; i < Number(values.warmup); i++) await extractOnce();

const timelines: Step[][] = [];
for (let i = 0; i < Number(values.requests); i++) {
  steps = [];
  const t0 = now();
  const res = await extractOnce();
  const t1 = now();
  if (res.statusCode !== 200) throw new Error(`extract failed: ${res.body}`);
  const jobId = res.json().job_id as string;
  const meta = res.json().metadata as { fetch_duration_ms: number; extract_duration_ms: number };
  steps.push({ name: '(fetch_duration_ms)', start: t0, end: t0 + meta.fetch_duration_ms });
  steps.push({ name: '(extract_duration_ms)', start: t0, end: t0 + meta.extract_duration_ms });
  await new Promise((r) => setTimeout(r, 30)); // background writes after the answer
  const mine = steps;
  steps = [];
  const history = await wf.getHandle(`extract-${jobId}`).fetchHistory();
  for (const e of history.events ?? []) {
    const at = e.eventTime;
    if (!at) continue;
    const ms = Number(at.seconds) * 1000 + (at.nanos ?? 0) / 1e6;
    mine.push({ name: `history ${String(e.eventType)}`, start: ms, end: ms });
  }
  mine.push({ name: 'API answered', start: t1, end: t1 });
  timelines.push(mine.map((s) => ({ ...s, start: s.start - t0, end: (s.end || s.start) - t0 })));
}

// The floor's workflow (one empty activity) on the same stack, as history events only.
const floor = await startFloor(svc.config.TEMPORAL_ADDRESS, 'trace-floor');
await floor.run('oneActivity', 1, Number(values.warmup));
const floorTimelines: Step[][] = [];
for (let i = 0; i < Number(values.requests); i++) {
  const t0 = now();
  const id = await floor.runOne('oneActivity');
  const t1 = now();
  const history = await wf.getHandle(id).fetchHistory();
  const mine: Step[] = [{ name: 'floor answered', start: t1, end: t1 }];
  for (const e of history.events ?? []) {
    const at = e.eventTime;
    if (!at) continue;
    const ms = Number(at.seconds) * 1000 + (at.nanos ?? 0) / 1e6;
    mine.push({ name: `history ${String(e.eventType)}`, start: ms, end: ms });
  }
  floorTimelines.push(mine.map((s) => ({ ...s, start: s.start - t0, end: s.end - t0 })));
}
await floor.stop();

// Steps named alike in one extract are told apart by their order (db2 insert events #1, #2 …).
function report(title: string, timelines: Step[][]) {
  const byName = new Map<string, { starts: number[]; ends: number[] }>();
  for (const line of timelines) {
    const seen = new Map<string, number>();
    for (const s of [...line].sort((a, b) => a.start - b.start)) {
      const k = (seen.get(s.name) ?? 0) + 1;
      seen.set(s.name, k);
      const key = k > 1 ? `${s.name} #${k}` : s.name;
      const entry = byName.get(key) ?? { starts: [], ends: [] };
      entry.starts.push(s.start);
      entry.ends.push(s.end);
      byName.set(key, entry);
    }
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0;
  const rows = [...byName]
    .filter(([, e]) => e.starts.length >= timelines.length / 2)
    .map(([name, e]) => ({ name, start: median(e.starts), end: median(e.ends), n: e.starts.length }))
    .sort((a, b) => a.start - b.start);
  console.log(`${title}: ${timelines.length}`);
  for (const r of rows)
    console.log(
      `${r.start.toFixed(1).padStart(7)} → ${r.end.toFixed(1).padStart(7)}  ${(r.end - r.start).toFixed(1).padStart(6)}  ${r.name}${r.n < timelines.length ? ` (${r.n}/${timelines.length})` : ''}`,
    );
}
report("extracts (db1 = the API's client, db2 = the worker's)", timelines);
report('floor workflows', floorTimelines);
await site.close();
await svc.close();
process.exit(0);
