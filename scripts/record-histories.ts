// Re-records the workflow histories CI replays (test/replay/histories): runs a fixed set of jobs on a
// private stack with the fake model and saves each workflow run's history. Run after a deliberate,
// versioned workflow change:  npm run --silent record-histories

import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { normalizeSchema } from '../shared/schema-input.js';
import { WORKFLOW_TYPES } from '../shared/temporal-names.js';
import { startTestService } from '../test/support/service.js';
import { type ShopSite, startShopSite } from '../test/support/shop-site.js';
import type { CrawlWorkflowInput } from '../workflows/crawl.js';

const OUT = 'test/replay/histories';
const svc = await startTestService();
const site: ShopSite = await startShopSite();
mkdirSync(OUT, { recursive: true });

async function save(name: string, workflowId: string, runId?: string) {
  const history = await svc.deps.temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  const file = join(OUT, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history as never)), null, 1)}\n`);
  process.stderr.write(`saved ${file}\n`);
}

async function post(url: string, payload: object) {
  const res = await svc.app.inject({ method: 'POST', url, headers: svc.auth(), payload });
  return res.json() as { job_id: string };
}

const ok = await post('/api/v1/extract', {
  url: `${site.url}/product/1`,
  schema: { name: 'string', price: 'number' },
});
await save('extract-completed', `extract-${ok.job_id}`);
const gone = await post('/api/v1/extract', { url: `${site.url}/product/7`, schema: { name: 'string' } });
await save('extract-failed-http-status', `extract-${gone.job_id}`);

// A crawl through the API, and one forced to continue as new (history_limit): every run is saved.
const crawl = await post('/api/v1/crawl?wait=true&timeout=120', {
  url: `${site.url}/`,
  schema: { name: 'string', price: 'number' },
  options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1, concurrency: 2 },
});
await save('crawl-completed', `crawl-${crawl.job_id}`);

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
      url: `${site.url}/`,
      capture_debug: false,
      workflow_id: workflowId,
      idempotency_key: null,
      max_depth: 1,
    },
  },
]);
const input: CrawlWorkflowInput = {
  jobId,
  tenantId: svc.tenantId,
  url: `${site.url}/`,
  fetchMode: 'static',
  cleanerChain: [{ name: 'markdown' }],
  schema: normalizeSchema({ name: 'string', price: 'number' }),
  captureDebug: false,
  options: {
    follow_selector: 'a.product',
    next_selector: 'a.next',
    same_domain_only: true,
    max_pages: 50,
    max_depth: 1,
    delay_ms: 0,
    concurrency: 2,
    respect_robots: true,
    history_limit: 40,
  },
  firstSeq: 1,
};
const handle = await svc.deps.temporal.workflow.start(WORKFLOW_TYPES.crawl, {
  workflowId,
  taskQueue: svc.config.TEMPORAL_TASK_QUEUE,
  args: [input],
});
await handle.result();
const runs: string[] = [];
for await (const wf of svc.deps.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
  runs.push(wf.runId);
runs.reverse(); // oldest first
for (const [i, runId] of runs.entries()) await save(`crawl-continue-as-new-run${i + 1}`, workflowId, runId);

await site.close();
await svc.close();
process.exit(0);
