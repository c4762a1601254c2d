// Side by side with a peer: Crawl4AI 0.9.5 and our service crawl the same generated shop with the same
// zero-latency fake model, one right after the other, and one table compares them.
//   npm run bench:peer -- [--pages 500] [--concurrency 10] [--warmup 200] [--peer-warmup 20]
//                         [--fetch-mode static|dynamic] [--peer-mode deep|list]
// Ours runs first, as bench:crawl does (a warm-up crawl, then the measured one), then Crawl4AI, after a warm-up
// of --peer-warmup pages. --peer-mode deep (the default) has Crawl4AI find the pages itself as ours does: a
// breadth-first deep crawl (BFSDeepCrawlStrategy) from the same first listing, following only the shop's
// listing and item links, with as many pages as ours crawled and the depth of the deepest of them, so that it
// crawls the same pages. --peer-mode list gives it the very URLs ours crawled (arun_many over the list: it
// discovers no links). --fetch-mode dynamic renders in Chromium on both sides (Crawl4AI: its browser crawler,
// Playwright starting Debian's Chromium). Crawl4AI goes into its own venv on the first run (venv.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startTestService } from '../../test/support/service.js';
import { PER_LISTING, startGeneratedSite, truthOf } from '../generated-site.js';
import { spawnBenchWorker } from '../worker-process.js';
import { type PeerMode, runCrawl4ai } from './crawl4ai.js';
import { runOurs } from './ours.js';
import { type Side, sideRow, table } from './table.js';
import { ensurePeerVenv } from './venv.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '200' },
    'peer-warmup': { type: 'string', default: '20' },
    'fetch-mode': { type: 'string', default: 'static' },
    'peer-mode': { type: 'string', default: 'deep' },
  },
});
const fetchMode = values['fetch-mode'];
if (fetchMode !== 'static' && fetchMode !== 'dynamic') throw new Error('--fetch-mode is static or dynamic');
const peerMode = values['peer-mode'] as PeerMode;
if (peerMode !== 'deep' && peerMode !== 'list') throw new Error('--peer-mode is deep or list');
const pages = Number(values.pages);
const concurrency = Number(values.concurrency);
const python = ensurePeerVenv();

const site = await startGeneratedSite({ pages });
// The fake model answers from the page text in the prompt. Crawl4AI sends the page's markdown joined onto one
// line ("# Item 3 Price: 3 Words about..."), which the fake's line reader cannot split, so both sides' requests
// are answered by this reader of the shop's page text (its heading and "Price:"), not by URL.
const respond = ({ userText }: { userText: string }) => {
  const title = /#\s+((?:Item|List) \d+)/.exec(userText)?.[1];
  if (!title) return undefined;
  const price = /Price:\s*(\d+(?:\.\d+)?)/.exec(userText)?.[1];
  return { title, price: price === undefined ? null : Number(price) };
};
const passedEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    (e): e is [string, string] =>
      /^(OTEL_|BROWSER_|DYNAMIC_)|^(TRACES_FILE|CHROMIUM_PATH)$/.test(e[0]) && e[1] !== undefined,
  ),
);
const svc = await startTestService({
  worker: false,
  env: { LOG_LEVEL: 'silent', ...passedEnv },
  llm: { respond },
});
const { worker, polling } = spawnBenchWorker(svc.config, concurrency);
await polling;

const loadBefore = loadavg();
const ours = await runOurs(svc, worker.pid ?? 0, {
  siteUrl: site.url,
  pages,
  warmup: Number(values.warmup),
  concurrency,
  fetchMode,
});
/** Links from the first listing to a page of the shop: /list/n is n - 1 "next" links away, its items one more. */
const depthOf = (url: string) => {
  const [, kind, n] = /^\/(list|item)\/(\d+)$/.exec(new URL(url).pathname) ?? [];
  return kind === 'list' ? Number(n) - 1 : Math.ceil(Number(n) / PER_LISTING);
};
const oursUrls = Object.keys(ours.records);
let modelCallsBefore = 0;
const peer = await runCrawl4ai(python, {
  crawl:
    peerMode === 'list'
      ? { peerMode, urls: oursUrls }
      : {
          peerMode,
          startUrl: `${site.url}/list/1`,
          maxPages: oursUrls.length,
          maxDepth: Math.max(0, ...oursUrls.map(depthOf)),
        },
  modelBaseUrl: svc.llm.openaiBaseUrl,
  concurrency,
  warmup: Number(values['peer-warmup']),
  mode: fetchMode === 'static' ? 'http' : 'browser',
  onMeasuring: () => {
    modelCallsBefore = svc.llm.requests.length;
  },
});
const loadAfter = loadavg();

/** Pages whose record says what the page says (title, and price: null on listings). */
const correct = (records: Record<string, { title: unknown; price: unknown } | null>) =>
  Object.entries(records).filter(([url, r]) => {
    const truth = truthOf(new URL(url).pathname);
    return r && truth && r.title === truth.title && (r.price ?? null) === truth.price;
  }).length;

const oursSet = new Set(oursUrls);
const sides: Side[] = [
  {
    name: `Crawl4AI 0.9.5 (${peer.crawl4ai_mode === 'http' ? 'HTTP' : 'browser'} crawler, ${peer.peer_mode === 'deep' ? 'deep crawl: BFS' : 'URL list'})`,
    pages: peer.pages,
    samePages: Object.keys(peer.records).filter((url) => oursSet.has(url)).length,
    seconds: peer.seconds,
    cpuMs: { crawler: peer.cpu_ms_per_page * peer.pages, 'site + model': peer.bench_cpu_ms },
    peakPssMb: peer.peak_pss_mb,
    correct: correct(peer.records),
    modelCalls: svc.llm.requests.length - modelCallsBefore,
  },
  {
    name: `ours (${fetchMode})`,
    pages: ours.pages,
    samePages: oursSet.size,
    seconds: ours.seconds,
    cpuMs: { crawler: ours.cpu_ms.worker + ours.cpu_ms.stores, 'site + model': ours.cpu_ms.bench },
    peakPssMb: ours.peak_pss_mb,
    correct: correct(ours.records),
    modelCalls: ours.model_calls,
  },
];
const report = {
  date: new Date().toISOString(),
  fetch_mode: fetchMode,
  peer_mode: peerMode,
  concurrency,
  load_average: {
    before: loadBefore.map((l) => Number(l.toFixed(2))),
    after: loadAfter.map((l) => Number(l.toFixed(2))),
  },
  rows: sides.map(sideRow),
  ours_cpu_ms_per_page: {
    worker: Number((ours.cpu_ms.worker / Math.max(1, ours.pages)).toFixed(1)),
    ferretdb_and_temporal: Number((ours.cpu_ms.stores / Math.max(1, ours.pages)).toFixed(1)),
    bench_process: Number((ours.cpu_ms.bench / Math.max(1, ours.pages)).toFixed(1)),
  },
  /** Paths that one side crawled and the other did not (at most 10 each). */
  pages_crawled_by_one_side: {
    crawl4ai: Object.keys(peer.records)
      .filter((url) => !oursSet.has(url))
      .map((url) => new URL(url).pathname)
      .slice(0, 10),
    ours: oursUrls
      .filter((url) => !(url in peer.records))
      .map((url) => new URL(url).pathname)
      .slice(0, 10),
  },
  crawl4ai_errors: peer.errors,
};
process.stdout.write(
  `${table(report.date, report.load_average, sides)}\n${JSON.stringify(report, null, 2)}\n`,
);
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/peer-${report.date.replaceAll(':', '-')}.json`, JSON.stringify(report));
worker.kill('SIGTERM');
await new Promise((r) => worker.once('exit', r));
await svc.close();
await site.close();
process.exit(0);
