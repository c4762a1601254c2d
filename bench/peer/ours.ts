// Our side of bench:peer: a crawl job through the API, as bench:crawl runs it (same site, schema, options and
// worker process), measured from /proc over this process's whole tree (the bench process with the API, site
// and fake model; the worker and its Chromium; FerretDB; the Temporal server).
import type { startTestService } from '../../test/support/service.js';
import { crawlGeneratedSite } from '../generated-site.js';
import { cpuMs, samplePeakPss, treePids } from './proc.js';

type Service = Awaited<ReturnType<typeof startTestService>>;

export interface OursReport {
  pages: number;
  seconds: number;
  cpu_ms: { worker: number; stores: number; bench: number };
  peak_pss_mb: number;
  model_calls: number;
  /** Each crawled page's URL and extracted record (null when the page failed). */
  records: Record<string, { title: unknown; price: unknown } | null>;
}

export async function runOurs(
  svc: Service,
  workerPid: number,
  opts: { siteUrl: string; pages: number; warmup: number; concurrency: number; fetchMode: string },
): Promise<OursReport> {
  const { siteUrl, concurrency, fetchMode } = opts;
  if (opts.warmup > 0) await crawlGeneratedSite(svc, siteUrl, { max: opts.warmup, concurrency, fetchMode });
  svc.llm.reset(); // the model calls counted are the measured crawl's
  const all = () => treePids(process.pid);
  const worker = () => treePids(workerPid);
  const before = { all: cpuMs(all()), worker: cpuMs(worker()), bench: process.cpuUsage() };
  const peak = samplePeakPss(all);
  const started = performance.now();
  const { jobId, job } = await crawlGeneratedSite(svc, siteUrl, { max: opts.pages, concurrency, fetchMode });
  const seconds = (performance.now() - started) / 1000;
  const bench = process.cpuUsage(before.bench);
  const benchMs = (bench.user + bench.system) / 1000;
  const workerMs = cpuMs(worker()) - before.worker;
  const allMs = cpuMs(all()) - before.all;
  const peakPss = peak.stop();
  const results = (
    await svc.app.inject({ url: `/api/v1/jobs/${jobId}/results?format=json`, headers: svc.auth() })
  ).json() as { url: string; status: string; data: { title?: unknown; price?: unknown } | null }[];
  const records = Object.fromEntries(
    results.map((r) => [
      r.url,
      r.status === 'completed' && r.data ? { title: r.data.title, price: r.data.price } : null,
    ]),
  );
  return {
    pages: job.page_count,
    seconds,
    cpu_ms: { worker: workerMs, stores: allMs - workerMs - benchMs, bench: benchMs },
    peak_pss_mb: peakPss,
    model_calls: svc.llm.requests.length,
    records,
  };
}
