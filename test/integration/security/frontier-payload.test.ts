// A page controls how long its links are: a crawl that queued thousands of long URLs must still continue as
// new (its queued pages would pass Temporal's 2 MB payload limit in the next run's input) instead of wedging.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { COLLECTIONS } from '../../../shared/store/mongo.js';
import { startCrawlOnTemporal } from '../../support/crawl-jobs.js';
import { html } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const LINKS_PER_PAGE = 150;
const PADDING = 'x'.repeat(850);

let svc: TestService;
let server: Server;
let base: string;

before(async () => {
  // Every page links to LINKS_PER_PAGE new pages with ~900-character URLs.
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const n = Number(/^\/p\/(\d+)/.exec(path)?.[1] ?? 0);
    const links = Array.from(
      { length: LINKS_PER_PAGE },
      (_, i) => `<a href="/p/${n * LINKS_PER_PAGE + i + 1}/${PADDING}">${i}</a>`,
    );
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(html(`Page ${n}`, `<h1>Page ${n}</h1>${links.join('')}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '10000' } }); // polled every 100 ms
});
after(async () => {
  await svc?.close();
  await new Promise((resolve) => server?.close(resolve));
});

test('a crawl whose queued pages pass 2 MB continues as new with them stored in chunks', {
  timeout: 180_000,
}, async () => {
  const { jobId, workflowId, handle } = await startCrawlOnTemporal(
    svc,
    {
      url: `${base}/p/0`,
      cleanerChain: [{ name: 'text' }],
      options: {
        follow_selector: 'a',
        same_domain_only: true,
        max_pages: 5000,
        max_depth: 3,
        delay_ms: 0,
        concurrency: 4,
        respect_robots: false,
        // About 25 pages a run: by the first continue-as-new some 3,000 long URLs are queued (~5 MB).
        history_limit: 150,
      },
    },
    { title: 'string' },
  );
  try {
    // Pages completed in the third run prove the first two continued as new with their queue.
    let runs = 0;
    let page_count = 0;
    for (let i = 0; i < 900 && (runs < 3 || page_count < 80); i++) {
      await new Promise((r) => setTimeout(r, 100));
      runs = 0;
      for await (const _ of svc.deps.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        runs++;
      page_count =
        (await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() })).json().page_count ?? 0;
    }
    assert.ok(runs >= 3, `the crawl ran ${runs} runs`);
    assert.ok(page_count >= 80, `only ${page_count} pages were crawled`);
    const stored = await svc.mongo.db.collection(COLLECTIONS.crawlFrontier).countDocuments({});
    assert.ok(stored > 2, `the queue was stored in ${stored} chunks`);
    // No payload of the crawl's history came near the limit.
    const history = await handle.fetchHistory();
    const largest = Math.max(
      ...(history.events ?? []).map((e) =>
        Math.max(
          ...[
            e.activityTaskScheduledEventAttributes?.input,
            e.activityTaskCompletedEventAttributes?.result,
            e.workflowExecutionStartedEventAttributes?.input,
          ].flatMap((p) => (p?.payloads ?? []).map((x) => x.data?.length ?? 0)),
          0,
        ),
      ),
    );
    assert.ok(largest < 512 * 1024, `a payload of ${largest} bytes`);
  } finally {
    await handle.cancel().catch(() => undefined);
  }
});
