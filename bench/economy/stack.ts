// The real stack for the bench, as bench/crawl.ts runs it: the API in this process (app.inject), the worker
// as its own process, the service's model pointed at the bench's fake model. One tenant per run, so nothing
// one run learns or stores is seen by the next.
import type { ChildProcess } from 'node:child_process';
import { startTestService, type TestService } from '../../test/support/service.js';
import { spawnBenchWorker } from '../worker-process.js';

export interface Stack {
  svc: TestService;
  worker: ChildProcess;
  close(): Promise<void>;
}

export async function startStack(opts: { openaiBaseUrl: string; concurrency: number }): Promise<Stack> {
  const svc = await startTestService({
    worker: false,
    env: { LOG_LEVEL: 'silent', OPENAI_BASE_URL: opts.openaiBaseUrl },
  });
  const { worker, polling } = spawnBenchWorker(svc.config, opts.concurrency);
  await polling;
  return {
    svc,
    worker,
    async close() {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
      await svc.close();
    },
  };
}

export interface JobView {
  id: string;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  page_count: number;
  failed_count: number;
  token_usage_input: number;
  token_usage_output: number;
  llm_cost_usd: number;
  cost_usd: number;
  pages_by_source?: Record<string, number>;
  error_category: string | null;
  error_message: string | null;
}

export interface PageResult {
  url: string;
  status: string;
  data: unknown;
  /** Where each value came from (results?include_provenance=true). */
  provenance?: Record<string, { source: string; selector?: string }> | null;
}

export type CrawlOutcome =
  | { kind: 'refused'; status: number; problem: unknown }
  | { kind: 'done'; job: JobView; results: PageResult[]; wallSeconds: number; templates: number };

/** Starts a crawl as a new tenant and polls the job until it ends; a refused request is returned as is. */
export async function runCrawl(stack: Stack, payload: Record<string, unknown>): Promise<CrawlOutcome> {
  const { svc } = stack;
  const tenant = await svc.newTenant(`bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  const headers = svc.auth(tenant.apiKey);
  const started = performance.now();
  const res = await svc.app.inject({ method: 'POST', url: '/api/v1/crawl', headers, payload });
  if (res.statusCode >= 400) return { kind: 'refused', status: res.statusCode, problem: res.json() };
  const jobId = (res.json() as { job_id: string }).job_id;
  let job = { status: 'pending' } as JobView;
  while (!['completed', 'failed', 'cancelled'].includes(job.status)) {
    await new Promise((r) => setTimeout(r, 500));
    job = (await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers })).json() as JobView;
    if (process.env.BENCH_PROGRESS) process.stderr.write(`${job.status} ${job.page_count} pages\n`);
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const results = (
    await svc.app.inject({
      url: `/api/v1/jobs/${jobId}/results?format=json&include_provenance=true`,
      headers,
    })
  ).json() as PageResult[];
  // The learned extractors the crawl made, counted through its scope's index (read by `_id`).
  const { total: templates } = await svc.deps.learned.listForScope(svc.tenantId, `job:${jobId}`, {
    limit: 0,
    offset: 0,
  });
  return { kind: 'done', job, results, wallSeconds, templates };
}
