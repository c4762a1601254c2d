// Crawl-job helpers shared by tests and scripts/record-histories.ts.
import { randomUUID } from 'node:crypto';
import { normalizeSchema } from '../../shared/schema-input.js';
import { WORKFLOW_TYPES } from '../../shared/temporal-names.js';
import type { CrawlWorkflowInput } from '../../workflows/crawl.js';
import type { TestService } from './service.js';
import type { ShopSite } from './shop-site.js';

const FINAL = ['completed', 'failed', 'cancelled'];

/**
 * Polls GET /jobs/{id} until the job has ended; returns the job resource. The polls count against the tenant's
 * rate limit like any request: a 429 waits out its Retry-After, so the caller's next request (the results, say)
 * is not the one the limit refuses. Any other refusal fails at once with its body.
 */
export async function waitForJobEnd(svc: TestService, jobId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() });
    if (res.statusCode === 200) {
      const job = res.json();
      if (FINAL.includes(job.status)) return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}`);
    } else if (res.statusCode !== 429) {
      throw new Error(`GET /jobs/${jobId} answered ${res.statusCode}: ${res.body}`);
    } else if (Date.now() > deadline) {
      throw new Error(`job ${jobId} still rate-limited at the deadline`);
    }
    const retryAfterMs = res.statusCode === 429 ? Number(res.headers['retry-after'] ?? 1) * 1000 : 100;
    await new Promise((r) => setTimeout(r, Math.min(retryAfterMs, Math.max(100, deadline - Date.now()))));
  }
}

/** Cancels the job through the API (asserting the 200) and waits until it has ended; returns the job resource. */
export async function cancelAndWait(svc: TestService, jobId: string, timeoutMs = 30_000) {
  const cancel = await svc.app.inject({
    method: 'POST',
    url: `/api/v1/jobs/${jobId}/cancel`,
    headers: svc.auth(),
  });
  if (cancel.statusCode !== 200) throw new Error(`cancel answered ${cancel.statusCode}: ${cancel.body}`);
  return waitForJobEnd(svc, jobId, timeoutMs);
}

/**
 * Starts a crawl of the shop (products and pagination, two pages at a time) through the API and waits until
 * `products` product pages have been requested, so the caller can disrupt it mid-crawl. Returns the job id.
 */
export async function startShopCrawlUnderway(
  svc: TestService,
  site: ShopSite,
  products = 3,
): Promise<string> {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl',
    headers: svc.auth(),
    payload: {
      url: `${site.url}/`,
      schema: { name: 'string', price: 'number' },
      options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1, concurrency: 2 },
    },
  });
  if (res.statusCode !== 202) throw new Error(`the crawl was not accepted: ${res.statusCode} ${res.body}`);
  // A bound generous enough for a worker process that starts slowly on a loaded machine.
  for (let i = 0; i < 1200 && site.productStarts.length < products; i++)
    await new Promise((r) => setTimeout(r, 100));
  if (site.productStarts.length < products) throw new Error('the crawl did not get going');
  return res.json().job_id as string;
}

/**
 * Starts a crawl directly on Temporal (as the API would, after recording job.created), so a test can set
 * what the API does not take (history_limit). Returns the job id, workflow id and handle.
 */
export async function startCrawlOnTemporal(
  svc: TestService,
  crawl: {
    url: string;
    options: CrawlWorkflowInput['options'];
    cleanerChain?: CrawlWorkflowInput['cleanerChain'];
  },
  schema: Record<string, string> = { name: 'string', price: 'number' },
) {
  const jobId = `job_${randomUUID().replaceAll('-', '')}`;
  const workflowId = `crawl-${jobId}`;
  await svc.deps.events.append([
    {
      type: 'job.created',
      job_id: jobId,
      tenant_id: svc.tenantId,
      seq: 0,
      event_id: randomUUID(),
      at: new Date().toISOString(),
      data: {
        job_type: 'crawl',
        url: crawl.url,
        capture_debug: false,
        workflow_id: workflowId,
        idempotency_key: null,
        max_depth: crawl.options.max_depth,
      },
    },
  ]);
  const input: CrawlWorkflowInput = {
    jobId,
    tenantId: svc.tenantId,
    url: crawl.url,
    fetchMode: 'static',
    cleanerChain: crawl.cleanerChain ?? [{ name: 'markdown' }],
    schema: normalizeSchema(schema),
    captureDebug: false,
    options: crawl.options,
    firstSeq: 1,
  };
  const handle = await svc.deps.temporal.workflow.start(WORKFLOW_TYPES.crawl, {
    workflowId,
    taskQueue: svc.config.TEMPORAL_TASK_QUEUE,
    args: [input],
  });
  return { jobId, workflowId, handle };
}

/** A crawl of the shop's listing with a lowered history limit, so it continues as new. */
export function startContinueAsNewCrawl(svc: TestService, site: Pick<ShopSite, 'url'>, historyLimit: number) {
  return startCrawlOnTemporal(svc, {
    url: `${site.url}/`,
    options: {
      follow_selector: 'a.product',
      next_selector: 'a.next',
      same_domain_only: true,
      max_pages: 50,
      max_depth: 1,
      delay_ms: 0,
      concurrency: 2,
      respect_robots: true,
      history_limit: historyLimit,
    },
  });
}
