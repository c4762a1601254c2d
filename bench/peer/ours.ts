// Our side of bench:peer: a crawl job through the API, as bench:crawl runs it (same site, schema, options and
// worker process), measured from /proc over this process's whole tree (the bench process with the API, site
// and fake model; the worker and its Chromium; FerretDB; the Temporal server).
import type { startTestService } from '../../test/support/service.js';
import { cpuMs, samplePeakPss, treePids } from './proc.js';

type Service = Awaited<ReturnType<typeof startTestService>>;
type JobState = { status: string; page_count: number; failed_count: number };

export interface OursReport {
  pages: number;
  seconds: number;
  cpu_ms: { worker: number; stores: number; bench: number };
  peak_pss_mb: number;
  model_calls: number;
  /** Each crawled page's URL and extracted record (null when the page failed). */
  records: Record<string, { title: unknown; price: unknown } | null>;
}

/** Starts a crawl of `max` pages from the site's first listing and polls the job until it ends. */
async function crawl(svc: Service, siteUrl: string, max: number, concurrency: number, fetchMode: string) {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl',
    headers: svc.auth(),
    payload: {
      url: `${siteUrl}/list/1`,
      schema: { title: 'string', price: 'number' },
      fetch_mode: fetchMode,
      options: {
        follow_selector: 'a.item',
        next_selector: 'a.next',
        max_pages: max,
        max_depth: 1,
        concurrency,
        respect_robots: true,
      },
    },
  });
  const jobId = res.json().job_id as string;
  let job: JobState = { status: 'pending', page_count: 0, failed_count: 0 };
  while (!['completed', 'failed', 'cancelled'].includes(job.status)) {
    await new Promise((r) => setTimeout(r, 500));
    job = (await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() })).json();
  }
  return { jobId, job };
}

export async function runOurs(
  svc: Service,
  workerPid: number,
  opts: { siteUrl: string; pages: number; warmup: number; concurrency: number; fetchMode: string },
): Promise<OursReport> {
  const { siteUrl, concurrency, fetchMode } = opts;
  if (opts.warmup > 0) await crawl(svc, siteUrl, opts.warmup, concurrency, fetchMode);
  svc.llm.reset(); // the model calls counted are the measured crawl's
  const all = () => treePids(process.pid);
  const worker = () => treePids(workerPid);
  const before = { all: cpuMs(all()), worker: cpuMs(worker()), bench: process.cpuUsage() };
  const peak = samplePeakPss(all);
  const started = performance.now();
  const { jobId, job } = await crawl(svc, siteUrl, opts.pages, concurrency, fetchMode);
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
