// crawlPages (several crawl pages in one activity) with a fake single-page run: one result per page in
// order, a page's failure answered in its place, a cancellation ending the batch at once; the tenant share
// counting a slot per page, and deferring crawl pages (not other activities) by activity type; the
// workflow's reading of a failure against the page's retry policy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { type ActivityExecuteInput, DefaultLogger } from '@temporalio/worker';
import { TenantShare } from '../../activities/common/tenant-share.js';
import { type CrawlPagesInput, makeCrawlPages } from '../../activities/crawl/crawl-pages.js';
import type { CrawlPageInput, CrawlPageResult } from '../../activities/crawl/crawl-types.js';
import { CategorizedError } from '../../shared/errors.js';
import { workerInterceptors } from '../../worker/interceptors.js';
import { crawlPagePolicy, retriedBy } from '../../workflows/policies.js';

const env = () => new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR', () => {}) });

const batchOf = (urls: string[]): CrawlPagesInput =>
  ({
    jobId: 'job_1',
    tenantId: 'tenant_1',
    pages: urls.map((url, i) => ({ node: i, pageId: `p${i}`, url, eventSeq: 10 + i, eventId: `e${i}` })),
  }) as unknown as CrawlPagesInput;

const completed = (url: string): CrawlPageResult => ({
  outcome: 'completed',
  links: [{ url: `${url}/next`, kind: 'follow' }],
  inputTokens: 1,
  outputTokens: 1,
});

test('each page runs with the batch input and its own, and answers in its place', async () => {
  const seen: CrawlPageInput[] = [];
  const crawlPages = makeCrawlPages(async (input) => {
    seen.push(input);
    if (input.url === 'https://a.test/retry') throw new CategorizedError('http_status', 'HTTP 503', true);
    if (input.url === 'https://a.test/gone') throw new CategorizedError('http_status', 'HTTP 410', false);
    return completed(input.url);
  });
  const urls = ['https://a.test/1', 'https://a.test/retry', 'https://a.test/gone'];
  const results = await env().run(crawlPages, batchOf(urls));
  assert.ok(Array.isArray(results));
  assert.deepEqual(results[0], completed(urls[0] as string));
  assert.deepEqual(results[1], {
    outcome: 'failed',
    category: 'http_status',
    message: 'HTTP 503',
    retryable: true,
  });
  assert.deepEqual(results[2], {
    outcome: 'failed',
    category: 'http_status',
    message: 'HTTP 410',
    retryable: false,
  });
  assert.deepEqual(
    seen.map((s) => [s.jobId, s.tenantId, s.url, s.eventSeq, s.pageId]),
    urls.map((url, i) => ['job_1', 'tenant_1', url, 10 + i, `p${i}`]),
  );
});

test('a cancelled batch ends at once, without waiting for its pages', async () => {
  const crawlPages = makeCrawlPages(() => new Promise<CrawlPageResult>(() => {}));
  const mock = env();
  const running = mock.run(crawlPages, batchOf(['https://a.test/1', 'https://a.test/2']));
  setTimeout(() => mock.cancel(), 20);
  await assert.rejects(running, (err) => err instanceof CancelledFailure);
});

test('the tenant share admits as many pages of a batch as it has slots free', () => {
  const share = new TenantShare(3);
  const first = share.tryEnterSome('t', 2);
  assert.equal(first.count, 2);
  const second = share.tryEnterSome('t', 4);
  assert.equal(second.count, 1);
  assert.equal(share.tryEnterSome('t', 1).count, 0);
  first.release();
  first.release(); // idempotent
  assert.equal(share.runningFor('t'), 1);
  second.release();
  assert.equal(share.runningFor('t'), 0);
});

test('the worker takes no more pages than its total over all tenants', () => {
  const share = new TenantShare(3, 4);
  const a = share.tryEnterSome('a', 3);
  assert.equal(a.count, 3);
  // Tenant b has its whole share free, but the worker has one slot left.
  const b = share.tryEnterSome('b', 3);
  assert.equal(b.count, 1);
  assert.equal(share.tryEnterSome('c', 1).count, 0);
  assert.equal(share.tryEnter('c'), null, 'a single deferrable page waits too');
  // A job's page that cannot be deferred is counted, never refused.
  const extract = share.enter('c');
  a.release();
  assert.equal(share.tryEnterSome('c', 4).count, 2);
  extract();
  b.release();
});

test('a page is run again alone only when the crawl-page policy would have retried it', () => {
  assert.equal(retriedBy(crawlPagePolicy, { category: 'http_status', retryable: true }), true);
  assert.equal(retriedBy(crawlPagePolicy, { category: 'http_status', retryable: false }), false);
  assert.equal(retriedBy(crawlPagePolicy, { category: 'robots_disallowed', retryable: true }), false);
});

type Given = { pages?: unknown[]; running?: number };

/**
 * Runs an activity of `activityType` through the worker's activity interceptors, outermost first. By default
 * the activity answers its input back (a batch: one result per page it was given).
 */
function runIntercepted(
  share: TenantShare,
  activityType: string,
  arg: object,
  activity: (given: Given) => unknown = (given) => given.pages ?? given,
): Promise<unknown> {
  const ctx = { info: { activityType, workflowExecution: { workflowId: 'job_1' }, heartbeatTimeoutMs: 0 } };
  const inbound = (workerInterceptors(null, share).activity ?? []).map(
    (make) => make(ctx as unknown as Context).inbound,
  );
  const input = {
    args: [{ jobId: 'job_1', tenantId: 't', ...arg }],
    headers: {},
  } as unknown as ActivityExecuteInput;
  const ran = async (i: ActivityExecuteInput) => activity(i.args[0] as Given);
  const chain = inbound.reduceRight<(i: ActivityExecuteInput) => Promise<unknown>>(
    (next, interceptor) => (i) => (interceptor?.execute ? interceptor.execute(i, next) : next(i)),
    ran,
  );
  return chain(input);
}

test('a full share defers crawl pages and batches by activity type; other activities still run', async () => {
  const share = new TenantShare(2);
  const taken = share.enter('t', 2);
  const deferred = { outcome: 'deferred', retryAfterMs: 500 };
  assert.deepEqual(await runIntercepted(share, 'crawlPage', { url: 'https://a.test/' }), deferred);
  assert.deepEqual(await runIntercepted(share, 'crawlPages', { pages: [{}, {}] }), deferred);
  assert.deepEqual(await runIntercepted(share, 'extractPage', { url: 'https://a.test/' }), {
    jobId: 'job_1',
    tenantId: 't',
    url: 'https://a.test/',
  });
  taken();
  // One slot free: the batch's first page runs, the second answers deferred in its place.
  const other = share.enter('t', 1);
  const batch = await runIntercepted(share, 'crawlPages', { pages: [{ n: 1 }, { n: 2 }] });
  assert.deepEqual(batch, [{ n: 1 }, deferred]);
  other();
  assert.equal(share.runningFor('t'), 0);
});

test('a batch runs `running` pages at a time, the next starting as one ends, and answers in order', async () => {
  let now = 0;
  let most = 0;
  const crawlPages = makeCrawlPages(async (input) => {
    most = Math.max(most, ++now);
    // Later pages end sooner: the answers still come in the pages' order.
    await new Promise((r) => setTimeout(r, 30 - input.node * 3));
    now--;
    return completed(input.url);
  });
  const urls = Array.from({ length: 7 }, (_, i) => `https://a.test/${i}`);
  const results = await env().run(crawlPages, { ...batchOf(urls), running: 3 });
  assert.equal(most, 3);
  assert.deepEqual(
    results,
    urls.map((url) => completed(url)),
  );
});

test('a batch that runs its pages a few at a time runs all of them in the slots its tenant has free', async () => {
  const share = new TenantShare(3);
  const other = share.enter('t', 2);
  const pages = [{ n: 1 }, { n: 2 }, { n: 3 }];
  // Every page runs, with `running` lowered to the one slot free.
  const seen: number[] = [];
  const ran = await runIntercepted(share, 'crawlPages', { pages, running: 2 }, (given) => {
    seen.push(given.running ?? 0);
    assert.equal(share.runningFor('t'), 3, 'one slot taken while it runs');
    return given.pages;
  });
  assert.deepEqual(ran, pages);
  assert.deepEqual(seen, [1]);
  assert.equal(share.runningFor('t'), 2, 'its slot released when it ended');
  other();
});
