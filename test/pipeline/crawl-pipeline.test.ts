// A crawl's page through the pipeline with in-memory ports: its links (new ones only, its own kept on a
// retry), its result event with its place in the crawl, robots.txt, a batch's bound on links, a stored page.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crawlOnePage } from '../../activities/crawl/crawl-pipeline.js';
import type { CrawlPageInput } from '../../activities/crawl/crawl-types.js';
import { DEFAULT_CLEANER_CHAIN } from '../../shared/cleaners.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import {
  html,
  memoryCrawlPorts,
  memoryEvents,
  memoryFetcher,
  memoryModel,
  memorySeenUrls,
  memorySite,
} from './memory-ports.js';

const URL_OF = (path: string) => `https://shop.test${path}`;

const SITE = {
  [URL_OF('/list')]: html(
    '',
    '<main><h1>Catalogue</h1>' +
      '<a class="product" href="/item/1">Item 1</a> <a class="product" href="/item/2">Item 2</a> ' +
      '<a class="product" href="/item/1">Item 1 again</a> <a class="product" href="https://elsewhere.test/item/3">Item 3</a>' +
      '<a class="next" href="/list?page=2">Next</a><a href="/about">About</a></main>',
  ),
};

function pageInput(extra: Partial<CrawlPageInput> = {}): CrawlPageInput {
  return {
    jobId: 'crawl_1',
    tenantId: 'ten_1',
    fetchMode: 'static',
    cleanerChain: DEFAULT_CLEANER_CHAIN,
    schema: normalizeSchema({ title: 'string' }),
    captureDebug: false,
    node: 0,
    pageId: 'p0',
    url: URL_OF('/list'),
    depth: 1,
    parentUrl: URL_OF('/'),
    seedUrl: URL_OF('/'),
    rules: { follow_selector: 'a.product', next_selector: 'a.next', same_domain_only: true },
    respectRobots: true,
    discover: { follow: true, next: true },
    eventSeq: 5,
    eventId: 'evt_5',
    ...extra,
  };
}

const noRetry = { retry: false };

describe('a crawl page through the pipeline', () => {
  test('its new links (same domain, each once) and its result event at its place in the crawl', async () => {
    const events = memoryEvents();
    const { model, asked } = memoryModel({ title: 'Catalogue' });
    const ports = memoryCrawlPorts({ fetcher: memoryFetcher(memorySite(SITE)), model, events });
    const result = await crawlOnePage(ports, pageInput(), noRetry);
    assert.deepEqual(result, {
      outcome: 'completed',
      links: [
        { url: URL_OF('/list?page=2'), kind: 'next' },
        { url: URL_OF('/item/1'), kind: 'follow' },
        { url: URL_OF('/item/2'), kind: 'follow' },
      ],
      inputTokens: 100,
      outputTokens: 10,
    });
    assert.equal(asked.length, 1);
    assert.deepEqual(
      events.log.map((e) => [e.seq, e.type, e.event_id]),
      [[5, 'page.completed', 'evt_5']],
    );
    const event = events.log[0];
    assert.ok(event?.type === 'page.completed');
    const page = event.data;
    assert.deepEqual(
      [page.node, page.page_id, page.url, page.depth, page.parent_url, page.data],
      [0, 'p0', URL_OF('/list'), 1, URL_OF('/'), { title: 'Catalogue' }],
    );
    // The page marked itself and the links it queued, as node 0.
    assert.deepEqual(
      [...ports.seen.marks.entries()].sort(),
      [URL_OF('/item/1'), URL_OF('/item/2'), URL_OF('/list'), URL_OF('/list?page=2')]
        .map((url) => [`crawl_1 ${url}`, 0] as [string, number])
        .sort(),
    );
  });

  test('links another page queued first are not queued again, but a retried page keeps its own', async () => {
    const seen = memorySeenUrls();
    const site = memorySite(SITE);
    const { model } = memoryModel({ title: 'Catalogue' });
    await seen.mark('crawl_1', 7, [URL_OF('/item/2')]);
    await seen.mark('crawl_1', 0, [URL_OF('/item/1')]); // this page's earlier attempt
    const run = (retry: boolean) =>
      crawlOnePage(memoryCrawlPorts({ fetcher: memoryFetcher(site), model, seen }), pageInput(), { retry });
    const retried = await run(true);
    assert.ok(retried.outcome === 'completed');
    assert.deepEqual(
      retried.links.map((l) => l.url),
      [URL_OF('/list?page=2'), URL_OF('/item/1')],
    );
    const again = await run(false);
    assert.ok(again.outcome === 'completed');
    assert.deepEqual(again.links, [], 'a first attempt finds every link queued');
  });

  test('robots.txt disallowing the page: skipped, not fetched, nothing recorded', async () => {
    const site = memorySite(SITE);
    const events = memoryEvents();
    const { model, asked } = memoryModel({});
    const ports = memoryCrawlPorts({
      fetcher: memoryFetcher(site),
      model,
      events,
      robotsAllow: async (url) => !url.includes('/list'),
    });
    const result = await crawlOnePage(ports, pageInput(), noRetry);
    assert.deepEqual(result, {
      outcome: 'skipped',
      category: 'robots_disallowed',
      message: 'robots.txt disallows this URL',
    });
    assert.deepEqual([site.requests, events.log, asked], [[], [], []]);
    // Not obeyed when it is not to be.
    const obeyed = await crawlOnePage(ports, pageInput({ respectRobots: false }), noRetry);
    assert.equal(obeyed.outcome, 'completed');
  });

  test("a batch's page over its share of the bound on links answers alone before the model is asked", async () => {
    const events = memoryEvents();
    const { model, asked } = memoryModel({ title: 'Catalogue' });
    const ports = memoryCrawlPorts({ fetcher: memoryFetcher(memorySite(SITE)), model, events });
    assert.deepEqual(await crawlOnePage(ports, pageInput({ batchLinkChars: 40 }), noRetry), {
      outcome: 'alone',
    });
    assert.deepEqual([asked, events.log], [[], []]);
    const within = await crawlOnePage(ports, pageInput({ batchLinkChars: 10_000 }), noRetry);
    assert.equal(within.outcome, 'completed');
  });

  test('a stored page: no request to the site (robots.txt neither), recorded as from the cache', async () => {
    const site = memorySite({});
    const stored = { [URL_OF('/list')]: { body: SITE[URL_OF('/list')] as string } };
    const events = memoryEvents();
    const { model } = memoryModel({ title: 'Catalogue' });
    const ports = memoryCrawlPorts({
      fetcher: memoryFetcher(site, stored),
      model,
      events,
      robotsAllow: async () => assert.fail('robots.txt is not asked for a stored page'),
    });
    const input = pageInput({
      stored: { jobId: 'crawl_0', pageId: 'p0', missing: 'fail' },
      discover: { follow: false, next: false },
    });
    const result = await crawlOnePage(ports, input, noRetry);
    assert.deepEqual(result, { outcome: 'completed', links: [], inputTokens: 100, outputTokens: 10 });
    assert.deepEqual(site.requests, []);
    const event = events.log[0];
    assert.ok(event?.type === 'page.completed');
    assert.equal(event.data.from_cache, true);
  });
});
