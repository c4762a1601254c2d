// Does a crawl stay as fast on a stack that has stored thousands of real-sized pages as on a fresh one?
//   npm run bench:grown-store -- [--pages 500] [--warmup 200] [--concurrency 10] [--item-kb 40]
//                                [--grow-crawl 1500] [--grow-copies 3] [--max-minutes 10]
// On its own FerretDB and Temporal (a temporary folder, removed at the end), with the generated shop whose
// item pages weigh --item-kb each: the same crawl (a --warmup crawl, then the measured --pages crawl, each
// phase in a newly started worker) runs on the fresh database, then again after the database has grown by a
// real crawl of --grow-crawl pages and --grow-copies copies of that crawl written through the stores (every
// copy's pages with bodies of their own in the page store). Reports pages/s, CPU a page by process, the
// database's size and its SQLite write-ahead log's, and the grown/fresh ratios. A measured crawl still running
// after --max-minutes is measured over the pages it had done by then, and cancelled (a store that scans can
// take hours).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startInfra } from '../scripts/lib/stack.js';
import { createStores } from '../shared/store/index.js';
import { startTestService } from '../test/support/service.js';
import { type CrawlJobState, crawlGeneratedSite, startGeneratedSite } from './generated-site.js';
import { preloadLike } from './preload.js';
import { processCpuMs, serverCpuMs } from './server-cpu.js';
import { spawnBenchWorker } from './worker-process.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '500' },
    warmup: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '10' },
    'item-kb': { type: 'string', default: '40' },
    'grow-crawl': { type: 'string', default: '1500' },
    'grow-copies': { type: 'string', default: '3' },
    'max-minutes': { type: 'string', default: '10' },
  },
});
const pages = Number(values.pages);
const warmup = Number(values.warmup);
const concurrency = Number(values.concurrency);
const itemBytes = Number(values['item-kb']) * 1024;
const growCrawl = Number(values['grow-crawl']);
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const site = await startGeneratedSite({ pages: Math.max(growCrawl, pages + warmup), itemBytes });
const infra = await startInfra();
const svc = await startTestService({ infra, worker: false, env: { LOG_LEVEL: 'silent' } });
const stores = createStores(svc.mongo.db, svc.config);
const crawl = (max: number, onPoll?: (job: CrawlJobState, jobId: string) => void) =>
  crawlGeneratedSite(svc, site.url, { max, concurrency, fetchMode: 'static' }, onPoll);

/** The database's SQLite file and its write-ahead log, in MB. */
function databaseMb(): { database: number; wal: number } {
  const dir = join(infra.dataDir, 'ferretdb');
  const mb = (suffix: string) => {
    const file = readdirSync(dir).find((f) => f === `${svc.config.MONGODB_DB}.sqlite${suffix}`);
    return file ? Math.round(statSync(join(dir, file)).size / 1e5) / 10 : 0;
  };
  return { database: mb(''), wal: mb('-wal') };
}

interface Snapshot {
  pages: number;
  at: number;
  cpu: Record<string, number>;
}

/**
 * Crawls `max` pages; the figures are those at its end, or at `minutes` if it is still running then (it is
 * cancelled and measured over the pages it had done).
 */
async function timedCrawl(max: number, minutes: number, cpu: () => Record<string, number>) {
  const ownBefore = process.cpuUsage();
  const snap = (pages: number): Snapshot => {
    const own = process.cpuUsage(ownBefore);
    return {
      pages,
      at: performance.now(),
      cpu: { ...cpu(), 'bench (API, site, model)': (own.user + own.system) / 1000 },
    };
  };
  const start = snap(0);
  const deadline = start.at + minutes * 60_000;
  let cut: Snapshot | null = null;
  const { job } = await crawl(max, (state, jobId) => {
    if (cut || performance.now() < deadline || state.status !== 'running') return;
    cut = snap(state.page_count);
    void svc.app.inject({ method: 'POST', url: `/api/v1/jobs/${jobId}/cancel`, headers: svc.auth() });
  });
  const end: Snapshot = cut ?? snap(job.page_count);
  const perPage = (ms: number) => Number((ms / Math.max(1, end.pages)).toFixed(1));
  const byProcess: Record<string, number> = Object.fromEntries(
    Object.keys(end.cpu).map((k) => [k, perPage((end.cpu[k] ?? 0) - (start.cpu[k] ?? 0))]),
  );
  const total = Object.values(byProcess).reduce((a, b) => a + b, 0);
  return {
    status: job.status,
    cut_short: cut !== null,
    pages: end.pages,
    pages_per_second: Number((end.pages / ((end.at - start.at) / 1000)).toFixed(2)),
    cpu_ms_per_page: { ...byProcess, total: Number(total.toFixed(1)) } as Record<string, number>,
  };
}

/** A new worker process, a warm-up crawl, then the measured crawl: pages/s and CPU a page by process. */
async function measure(name: string) {
  const { worker, polling } = spawnBenchWorker(svc.config, concurrency);
  await polling;
  const cpu = (): Record<string, number> => ({
    worker: worker.pid ? processCpuMs(worker.pid) : 0,
    ...serverCpuMs(),
  });
  const minutes = Number(values['max-minutes']);
  const warm = warmup > 0 ? await timedCrawl(warmup, minutes / 2, cpu) : null;
  const measured = await timedCrawl(pages, minutes, cpu);
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  const result = { ...measured, warmup: warm, store_mb: databaseMb() };
  log(`${name}: ${JSON.stringify(result)}`);
  return result;
}

const fresh = await measure('fresh');

log(`growing: a crawl of ${growCrawl} pages`);
const grewStarted = performance.now();
const { worker, polling } = spawnBenchWorker(svc.config, concurrency);
await polling;
const grown = await crawl(growCrawl);
worker.kill('SIGTERM');
await new Promise((r) => worker.once('exit', r));
log(`growing: ${values['grow-copies']} copies of it through the stores`);
const copies = await preloadLike(stores, grown.jobId, {
  tenantId: svc.tenantId,
  jobs: Number(values['grow-copies']),
  pageBytes: itemBytes,
  store: 'pages',
  parallel: 2,
});
const growth = {
  crawled_pages: grown.job.page_count,
  copied_pages: copies.jobs * grown.job.page_count,
  seconds: Math.round((performance.now() - grewStarted) / 1000),
  store_mb: databaseMb(),
};
log(`grown: ${JSON.stringify(growth)}`);

const after = await measure('grown');
const ratio = (a: number, b: number) => Number((a / Math.max(1e-9, b)).toFixed(2));
const report = {
  item_kb: Number(values['item-kb']),
  pages,
  warmup,
  concurrency,
  fresh,
  growth,
  grown: after,
  grown_vs_fresh: {
    pages_per_second: ratio(after.pages_per_second, fresh.pages_per_second),
    cpu_ms_per_page: ratio(after.cpu_ms_per_page.total ?? 0, fresh.cpu_ms_per_page.total ?? 0),
    ferretdb_cpu_ms_per_page: ratio(after.cpu_ms_per_page.ferretdb ?? 0, fresh.cpu_ms_per_page.ferretdb ?? 0),
  },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
await svc.close();
await infra.stop();
await site.close();
process.exit(0);
