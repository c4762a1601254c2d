// Crawl benchmark: a generated local site of N pages, crawled with the fake model at zero latency.
//   npm run bench:crawl -- [--pages 1000] [--concurrency 10] [--warmup 200] [--preload 0] [--page-kb 100]
//                          [--fetch-mode static|dynamic] [--page-script] [--count-commands]
// --count-commands counts the worker's database commands a page of the measured crawl by kind (command and
// collection), with the documents and bytes they carried (bench/count-commands.mjs; it costs worker CPU of its
// own, so compare CPU a page between runs without it).
// --fetch-mode dynamic renders every page in the worker's Chromium; the report then adds the Chromium
// processes' CPU per page (browser, renderers, other) and their peak memory. BROWSER_*, DYNAMIC_* and
// CHROMIUM_PATH from this environment reach the worker (e.g. BROWSER_MAX_PAGES=10). --page-script gives every
// page a small inline script (it writes a line into the page), so a render waits for the network to go quiet
// as it does for a scripted page; without it the pages run no script and are read once parsed.
// --preload N first fills the stack with N finished copies of one real extract (bench/preload.ts).
// The measured crawl follows a warm-up crawl of --warmup pages (0: none, measure a cold worker).
// Reports pages per second, per-page time p50/p99 (activity start to result, from the crawl map), history
// events per page over every continue-as-new run, the worker process's peak RSS and the whole stack's peak PSS
// (worker with its children, FerretDB, Temporal, and this process: API, site, fake model).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createStores } from '../shared/store/index.js';
import { startTestService } from '../test/support/service.js';
import { crawlGeneratedSite, startGeneratedSite } from './generated-site.js';
import { preloadLike } from './preload.js';
import { type ChromiumRole, ChromiumSampler, stackPssMb } from './process-tree.js';
import { processCpuMs, serverCpuMs } from './server-cpu.js';
import { spawnBenchWorker } from './worker-process.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '200' },
    preload: { type: 'string', default: '0' },
    'page-kb': { type: 'string', default: '100' },
    'fetch-mode': { type: 'string', default: 'static' },
    'page-script': { type: 'boolean', default: false },
    'count-commands': { type: 'boolean', default: false },
  },
});
const fetchMode = values['fetch-mode'];
if (fetchMode !== 'static' && fetchMode !== 'dynamic') throw new Error('--fetch-mode is static or dynamic');
const warmupPages = Number(values.warmup);
const pages = Number(values.pages);
const concurrency = Number(values.concurrency);

// The site: /list/1..L link 20 items each and the next listing; /item/k are detail pages.
const site = await startGeneratedSite({ pages, pageScript: values['page-script'] });
const siteUrl = site.url;

// The service's tracing settings come from this environment (e.g. OTEL_SDK_DISABLED=true to measure without).
// So do the browser's settings.
const passedEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    (e): e is [string, string] =>
      /^(OTEL_|BROWSER_|DYNAMIC_)|^(TRACES_FILE|CHROMIUM_PATH)$/.test(e[0]) && e[1] !== undefined,
  ),
);
const svc = await startTestService({ worker: false, env: { LOG_LEVEL: 'silent', ...passedEnv } });
const countsFile = join(tmpdir(), `bench-crawl-commands-${process.pid}.json`);
if (values['count-commands']) process.env.BENCH_DB_COUNTS = countsFile;
/** The worker's database commands so far by kind: [commands, documents, bytes] (with --count-commands). */
const commandCounts = (): Record<string, [number, number, number]> => {
  try {
    return JSON.parse(readFileSync(countsFile, 'utf8'));
  } catch {
    return {};
  }
};
const { worker, polling } = spawnBenchWorker(svc.config, concurrency);
const chromium = new ChromiumSampler(worker.pid ?? 0);
if (fetchMode === 'dynamic') chromium.start();
let peakRss = 0;
const sampler = setInterval(() => {
  try {
    const status = readFileSync(`/proc/${worker.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peakRss = Math.max(peakRss, kb * 1024);
  } catch {
    // not started yet, or gone
  }
}, 250);
await polling;
await new Promise((r) => setTimeout(r, 1000));

/** CPU time (ms) of the worker, FerretDB and the Temporal server, from /proc: where a page's cost lies. */
function cpuByProcess(): Record<string, number> {
  return { worker: worker.pid ? processCpuMs(worker.pid) : 0, ...serverCpuMs() };
}
/** Crawls `max` pages of the site as the measured crawl does. */
const crawl = (max: number) =>
  crawlGeneratedSite(svc, siteUrl, { max, concurrency, fetchMode }, (job) => {
    if (process.env.BENCH_PROGRESS)
      process.stderr.write(`${job.status} ${job.page_count} pages, worker CPU ${cpuByProcess().worker} ms\n`);
  });

let preload: { jobs: number; seconds: number } | null = null;
if (Number(values.preload) > 0) {
  const template = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${siteUrl}/item/1`, schema: { title: 'string', price: 'number' }, fetch_mode: 'static' },
  });
  if (template.statusCode !== 200) throw new Error(`the template extract failed: ${template.body}`);
  preload = await preloadLike(createStores(svc.mongo.db, svc.config), template.json().job_id, {
    tenantId: svc.tenantId,
    jobs: Number(values.preload),
    pageBytes: Number(values['page-kb']) * 1024,
  });
}

// A worker that has just started runs its code cold (V8 has not compiled the hot paths yet; a 1,000-page
// crawl from cold costs ~9 ms more worker CPU per page). A service runs warm: the measured crawl follows a
// short warm-up crawl of its own (a separate job), whose rate is reported too. --warmup 0 measures cold.
const warmupStarted = performance.now();
const warm = warmupPages > 0 ? await crawl(warmupPages) : null;
const warmupSeconds = (performance.now() - warmupStarted) / 1000;

// The tally is written every second: let the warm-up's last commands land in it first.
if (values['count-commands']) await new Promise((r) => setTimeout(r, 1200));
const commandsBefore = commandCounts();
const cpuBefore = cpuByProcess();
const chromiumBefore = chromium.sample();
chromium.resetPeaks();
const benchCpuBefore = process.cpuUsage();
const loadBefore = loadavg();
const rssAtStart = peakRss;
// The whole stack's PSS, every second of the measured crawl: its peak total, with the parts at that moment.
let stackPeak: Record<string, number> = { total: 0 };
const stackSampler = setInterval(() => {
  const parts = stackPssMb(worker.pid ?? 0);
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  if (total > (stackPeak.total ?? 0)) stackPeak = { total, ...parts };
}, 1000);
const started = performance.now();
const { jobId, job } = await crawl(pages);
clearInterval(stackSampler);
const seconds = (performance.now() - started) / 1000;
const cpuAfter = cpuByProcess();
if (values['count-commands']) await new Promise((r) => setTimeout(r, 1200));
const commandsAfter = commandCounts();
const chromiumAfter = chromium.sample();
chromium.stop();
// This process serves the API, the generated site and the fake model: it shares the 2 cores too.
const benchCpu = process.cpuUsage(benchCpuBefore);
cpuAfter['bench (API, site, model)'] = (benchCpu.user + benchCpu.system) / 1000;
// The browser's whole tree (browser, renderers, GPU and utility processes), sampled every 200 ms.
const chromiumMs = (k: ChromiumRole) => chromiumAfter[k] - chromiumBefore[k];
if (fetchMode === 'dynamic')
  cpuAfter.chromium = chromiumMs('browser') + chromiumMs('renderers') + chromiumMs('other');
const perPage = (ms: number) => Number((ms / Math.max(1, job.page_count)).toFixed(1));
const cpuMsPerPage = Object.fromEntries(
  Object.keys(cpuAfter).map((k) => [k, perPage((cpuAfter[k] ?? 0) - (cpuBefore[k] ?? 0))]),
);
const chromiumReport =
  fetchMode === 'dynamic'
    ? {
        cpu_ms_per_page: {
          browser: perPage(chromiumMs('browser')),
          renderers: perPage(chromiumMs('renderers')),
          other: perPage(chromiumMs('other')),
        },
        peak_pss_mb: chromium.peakPssMb,
        peak_rss_mb: chromium.peakRssMb,
        peak_processes: chromium.peakProcesses,
      }
    : null;
clearInterval(sampler);

const map = (
  await svc.app.inject({ url: `/api/v1/jobs/${jobId}/crawl-map`, headers: svc.auth() })
).json() as {
  entries: { fetch_duration_ms: number | null; extract_duration_ms: number | null; status: string }[];
};
let historyEvents = 0;
let runs = 0;
for await (const wf of svc.deps.temporal.workflow.list({ query: `WorkflowId = 'crawl-${jobId}'` })) {
  runs++;
  historyEvents += wf.historyLength;
}
// Where a page's time goes, from the first run's history: queued (scheduled → started) and running
// (started → closed) per crawl-page activity (crawlPage, or crawlPages for several pages at once).
const PAGE_ACTIVITIES = new Set(['crawlPage', 'crawlPages']);
/** Pages of the first run's crawl-page activities (a page run again alone counts again). */
let pagesScheduled = 0;
const pagesOf = (type: string, data: Uint8Array | null | undefined) =>
  type === 'crawlPages' && data
    ? ((JSON.parse(Buffer.from(data).toString()) as { pages?: unknown[] }).pages?.length ?? 1)
    : 1;
const queued: number[] = [];
const running: number[] = [];
const history = await svc.deps.temporal.workflow.getHandle(`crawl-${jobId}`).fetchHistory();
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const scheduledAt = new Map<number, { at: number; type: string }>();
// Workflow tasks: waiting for the worker (scheduled → started) and the worker's turn (started → completed).
const wftQueued: number[] = [];
const wftRunning: number[] = [];
let wftScheduledAt = 0;
let wftStartedAt = 0;
const startedAt = new Map<number, number>();
/** The first run's history events by type (a page's share of each is reported). */
const eventsByType = new Map<string, number>();
for (const ev of history.events ?? []) {
  const kind = Object.keys(ev).find((k) => k.endsWith('EventAttributes') && ev[k as keyof typeof ev]) ?? '?';
  eventsByType.set(kind, (eventsByType.get(kind) ?? 0) + 1);
  const id = Number(ev.eventId);
  const at = ms(ev.eventTime);
  const scheduled = ev.activityTaskScheduledEventAttributes;
  if (scheduled) {
    const type = scheduled.activityType?.name ?? '';
    scheduledAt.set(id, { at, type });
    if (PAGE_ACTIVITIES.has(type)) pagesScheduled += pagesOf(type, scheduled.input?.payloads?.[0]?.data);
  }
  if (ev.workflowTaskScheduledEventAttributes) wftScheduledAt = at;
  if (ev.workflowTaskStartedEventAttributes) {
    wftStartedAt = at;
    wftQueued.push(at - wftScheduledAt);
  }
  if (ev.workflowTaskCompletedEventAttributes) wftRunning.push(at - wftStartedAt);
  const st = ev.activityTaskStartedEventAttributes;
  if (st) {
    const s = scheduledAt.get(Number(st.scheduledEventId));
    startedAt.set(Number(st.scheduledEventId), at);
    if (PAGE_ACTIVITIES.has(s?.type ?? '')) queued.push(at - (s?.at ?? at));
  }
  const done = ev.activityTaskCompletedEventAttributes ?? ev.activityTaskFailedEventAttributes;
  if (done) {
    const sid = Number(done.scheduledEventId);
    if (PAGE_ACTIVITIES.has(scheduledAt.get(sid)?.type ?? '')) running.push(at - (startedAt.get(sid) ?? at));
  }
}
/** Commands, documents and bytes a page by kind, and their totals, between two tallies. */
function commandsPerPage(
  before: Record<string, [number, number, number]>,
  after: Record<string, [number, number, number]>,
  pages: number,
) {
  const per = (n: number) => Number((n / Math.max(1, pages)).toFixed(2));
  const kinds: Record<string, { commands: number; documents: number; bytes: number }> = {};
  const total = { commands: 0, documents: 0, bytes: 0 };
  for (const [kind, [c, d, b]] of Object.entries(after)) {
    const [c0, d0, b0] = before[kind] ?? [0, 0, 0];
    if (c === c0) continue;
    kinds[kind] = { commands: per(c - c0), documents: per(d - d0), bytes: Math.round((b - b0) / pages) };
    total.commands += c - c0;
    total.documents += d - d0;
    total.bytes += b - b0;
  }
  const sorted = Object.entries(kinds).sort((a, b) => b[1].commands - a[1].commands);
  return {
    total: {
      commands: per(total.commands),
      documents: per(total.documents),
      bytes: Math.round(total.bytes / pages),
    },
    ...Object.fromEntries(sorted),
  };
}
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
};
const work = map.entries
  .filter((e) => e.status === 'completed')
  .map((e) => (e.fetch_duration_ms ?? 0) + (e.extract_duration_ms ?? 0))
  .sort((a, b) => a - b);
const pct = (p: number) => work[Math.min(work.length - 1, Math.floor((p / 100) * work.length))] ?? 0;
const report = {
  preload,
  warmup: warm
    ? {
        pages: warm.job.page_count,
        pages_per_second: Number((warm.job.page_count / warmupSeconds).toFixed(1)),
      }
    : null,
  fetch_mode: fetchMode,
  page_script: values['page-script'],
  pages_requested: pages,
  concurrency,
  load_average: {
    before: loadBefore.map((l) => Number(l.toFixed(2))),
    after: loadavg().map((l) => Number(l.toFixed(2))),
  },
  status: job.status,
  pages_done: job.page_count,
  pages_failed: job.failed_count,
  seconds: Number(seconds.toFixed(1)),
  pages_per_second: Number((job.page_count / seconds).toFixed(1)),
  per_page_fetch_plus_model_ms: { p50: pct(50), p99: pct(99) },
  wall_ms_per_page_per_slot: Number(
    ((seconds * 1000 * concurrency) / Math.max(1, job.page_count)).toFixed(1),
  ),
  crawl_page_activities_per_page: Number((running.length / Math.max(1, pagesScheduled)).toFixed(2)),
  crawl_page_activity_ms: {
    queued_p50: percentile(queued, 50),
    queued_p99: percentile(queued, 99),
    running_p50: percentile(running, 50),
    running_p99: percentile(running, 99),
  },
  workflow_task_ms: {
    per_page: Number((wftRunning.length / Math.max(1, pagesScheduled)).toFixed(2)),
    queued_p50: percentile(wftQueued, 50),
    queued_p99: percentile(wftQueued, 99),
    running_p50: percentile(wftRunning, 50),
    running_p99: percentile(wftRunning, 99),
  },
  cpu_ms_per_page: cpuMsPerPage,
  chromium: chromiumReport,
  workflow_runs: runs,
  history_events_per_page: Number((historyEvents / Math.max(1, job.page_count)).toFixed(2)),
  first_run_events_per_page_scheduled: Object.fromEntries(
    [...eventsByType]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => [
        k.replace(/EventAttributes$/, ''),
        Number((n / Math.max(1, pagesScheduled)).toFixed(3)),
      ]),
  ),
  database_commands_per_page: values['count-commands']
    ? commandsPerPage(commandsBefore, commandsAfter, job.page_count)
    : null,
  worker_rss_mb_before_crawl: Math.round(rssAtStart / 1024 / 1024),
  worker_peak_rss_mb: Math.round(peakRss / 1024 / 1024),
  // `bench` is this process: the API, the generated site and the fake model together.
  stack_peak_pss_mb: stackPeak,
  // Dynamic: Crawl4AI 0.9.5's browser crawler on this machine (100 local pages, concurrency 10).
  targets:
    fetchMode === 'dynamic'
      ? { pages_per_second_at_c10: 5.4 }
      : { pages_per_second_at_c10: 50, worker_rss_mb_at_10k: 600 },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/crawl-${new Date().toISOString().replaceAll(':', '-')}.json`,
  JSON.stringify(report),
);
worker.kill('SIGTERM');
await new Promise((r) => worker.once('exit', r));
await svc.close();
void site.close();
process.exit(0);
