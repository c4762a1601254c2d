import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(async () => svc?.close());

const schema = { name: 'string', price: 'number' };

async function crawl(site: ShopSite, options: object, query = '', extra: object = {}) {
  return svc.app.inject({
    method: 'POST',
    url: `/api/v1/crawl${query}`,
    headers: svc.auth(),
    payload: { url: `${site.url}/`, schema, options, ...extra },
  });
}

const waitFinal = (jobId: string, timeoutMs = 60_000) => waitForJobEnd(svc, jobId, timeoutMs);

const get = (url: string) => svc.app.inject({ url, headers: svc.auth() }).then((r) => r.json());

describe('POST /api/v1/crawl', () => {
  test('follows product links and pagination, obeys robots.txt, never fetches a URL twice', async () => {
    const site = await startShopSite();
    try {
      const res = await crawl(
        site,
        { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1 },
        '?wait=true&timeout=60',
      );
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.status, 'completed');
      const byUrl = new Map<string, any>(
        body.data.map((r: { url: string }) => [r.url.replace(site.url, ''), r]),
      );
      assert.equal(byUrl.get('/?page=2')?.status, 'completed', [...byUrl.keys()].join(' '));
      for (const id of [1, 2, 3, 5, 6, 8, 9, 10]) {
        const page = byUrl.get(`/product/${id}`) as { status: string; data: { price: number } };
        assert.equal(page?.status, 'completed', `product ${id}`);
        assert.equal(page.data.price, id * 10);
      }
      assert.equal((byUrl.get('/product/4') as { status: string; error_category: string }).status, 'skipped');
      assert.equal(
        (byUrl.get('/product/4') as { error_category: string }).error_category,
        'robots_disallowed',
      );
      assert.equal((byUrl.get('/product/7') as { status: string }).status, 'failed');
      assert.ok(!byUrl.has('/about'), 'links outside follow_selector are not followed');
      assert.equal(body.page_count, 10);
      assert.ok(body.token_usage.input > 0);

      const hits = site.hits.filter((h) => h.startsWith('/product/') || h.startsWith('/?') || h === '/');
      assert.equal(new Set(hits).size, hits.length, `no page fetched twice: ${hits.join(' ')}`);
      assert.ok(!site.hits.includes('/product/4'), 'robots.txt-disallowed page never requested');

      const job = await get(`/api/v1/jobs/${body.job_id}`);
      assert.equal(job.status, 'completed');
      assert.equal(job.failed_count, 1);
      assert.equal(job.error_category, 'http_status');
      assert.equal(job.urls_queued, 0);

      const map = await get(`/api/v1/jobs/${body.job_id}/crawl-map`);
      assert.equal(map.seed_url, `${site.url}/`);
      assert.equal(map.max_depth, 1);
      assert.equal(map.total, 12);
      assert.equal(map.completed, 10);
      assert.equal(map.failed, 1);
      assert.deepEqual(map.error_summary.by_category, { http_status: 1 });
      const p2 = map.entries.find((e: { url: string }) => e.url.endsWith('/product/2'));
      assert.equal(p2.depth, 1);
      assert.equal(p2.parent_url, `${site.url}/`);
      assert.equal(p2.llm_provider, 'openai');
      assert.ok(p2.token_usage_input > 0);
    } finally {
      await site.close();
    }
  });

  test('max_pages bounds the crawl; the rest is recorded as skipped in the crawl map', async () => {
    const site = await startShopSite();
    try {
      const res = await crawl(site, { follow_selector: 'a.product', max_pages: 3 }, '?wait=true&timeout=60');
      const body = res.json();
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body.data.length, 3);
      const map = await get(`/api/v1/jobs/${body.job_id}/crawl-map`);
      const skipped = map.entries.filter((e: { status: string }) => e.status === 'skipped');
      assert.equal(skipped.length, 3);
      assert.ok(skipped.every((e: { error_details: string }) => e.error_details === 'max_pages'));
    } finally {
      await site.close();
    }
  });

  test('concurrency bounds the requests in flight at the site, and delay spaces them per domain', async () => {
    const site = await startShopSite({ productDelayMs: 300 });
    try {
      const res = await crawl(
        site,
        { follow_selector: 'a.product', next_selector: 'a.next', concurrency: 2 },
        '?wait=true&timeout=60',
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(site.inFlight.max, 2, 'two product pages in flight at most, and the limit is used');
    } finally {
      await site.close();
    }
    const spaced = await startShopSite();
    try {
      const res = await crawl(
        spaced,
        { follow_selector: 'a.product', concurrency: 5, delay: '400ms', max_pages: 5 },
        '?wait=true&timeout=60',
      );
      assert.equal(res.statusCode, 200, res.body);
      const starts = [...spaced.productStarts].sort((a, b) => a - b);
      assert.ok(starts.length >= 3);
      for (let i = 1; i < starts.length; i++) {
        const gap = (starts[i] as number) - (starts[i - 1] as number);
        assert.ok(gap >= 380, `gap ${gap} ms between product requests`);
      }
    } finally {
      await spaced.close();
    }
  });

  test('without wait: 202 at once with the job link; a wait that times out is also 202 and the job goes on', async () => {
    const site = await startShopSite({ productDelayMs: 2500 });
    try {
      const quick = await crawl(site, { follow_selector: 'a.product', concurrency: 1, max_pages: 2 });
      assert.equal(quick.statusCode, 202, quick.body);
      assert.equal(quick.json().status_url, `/api/v1/jobs/${quick.json().job_id}`);
      assert.equal(typeof quick.json().queue_position, 'number');
      assert.equal(quick.json().data, undefined);
      const slow = await crawl(
        site,
        { follow_selector: 'a.product', concurrency: 1, max_pages: 6 },
        '?wait=true&timeout=10',
      );
      assert.equal(slow.statusCode, 202, slow.body);
      assert.notEqual(slow.json().status, 'completed');
      const done = await waitFinal(slow.json().job_id, 60_000);
      assert.equal(done.status, 'completed');
      assert.equal((await waitFinal(quick.json().job_id)).status, 'completed');
    } finally {
      await site.close();
    }
  });

  test('cancel ends a running crawl as cancelled; a finished job cannot be cancelled', async () => {
    const site = await startShopSite({ productDelayMs: 2000 });
    try {
      const res = await crawl(site, { follow_selector: 'a.product', concurrency: 2 });
      const jobId = res.json().job_id;
      for (let i = 0; i < 50 && site.productStarts.length === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      // While product pages are at the site, the crawl map shows them as crawling (at most 2 at once).
      const running = (await get(`/api/v1/jobs/${jobId}/crawl-map`)) as {
        entries: { url: string; status: string }[];
      };
      const crawling = running.entries.filter((e) => e.status === 'crawling');
      assert.ok(crawling.length >= 1 && crawling.length <= 2, JSON.stringify(running.entries));
      for (const e of crawling) assert.match(e.url, /\/product\/\d+$/);
      const cancel = await svc.app.inject({
        method: 'POST',
        url: `/api/v1/jobs/${jobId}/cancel`,
        headers: svc.auth(),
      });
      assert.equal(cancel.statusCode, 200, cancel.body);
      const job = await waitFinal(jobId);
      assert.equal(job.status, 'cancelled');
      assert.ok(job.page_count < 10);
      const again = await svc.app.inject({
        method: 'POST',
        url: `/api/v1/jobs/${jobId}/cancel`,
        headers: svc.auth(),
      });
      assert.equal(again.statusCode, 409);
    } finally {
      await site.close();
    }
  });

  test('out-of-range options are 422 naming the field', async () => {
    const site = await startShopSite();
    try {
      for (const [options, location] of [
        [{ max_pages: 0 }, 'body.options.max_pages'],
        [{ max_pages: 10_001 }, 'body.options.max_pages'],
        [{ max_depth: 11 }, 'body.options.max_depth'],
        [{ concurrency: 21 }, 'body.options.concurrency'],
        [{ delay: 'soon' }, 'body.options.delay'],
        [{ follow_pattern: '(' }, 'body.options.follow_pattern'],
        [{ follow_selector: 'a[' }, 'body.options.follow_selector'],
      ] as const) {
        const res = await crawl(site, options);
        assert.equal(res.statusCode, 422, JSON.stringify(options));
        assert.equal(res.json().errors[0].location, location);
      }
      const timeout = await crawl(site, {}, '?wait=true&timeout=5');
      assert.equal(timeout.statusCode, 422);
      assert.equal(timeout.json().errors[0].location, 'query.timeout');
    } finally {
      await site.close();
    }
  });
});

// Real fetches: the redirect loop is followed by the fetcher until it gives up (the fake activities' page
// table runs no redirects).
test('a trap of endless links and a redirect loop end within the limits', { timeout: 120_000 }, async () => {
  const site = await startShopSite();
  try {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl?wait=true&timeout=100',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/product/2`,
        schema: { name: 'string' },
        options: { follow_pattern: '/(trap|loop)', max_depth: 10, max_pages: 12, concurrency: 4 },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.status, 'completed');
    assert.ok(body.data.length <= 12);
    const loop = body.data.find((r: { url: string }) => r.url.endsWith('/loop'));
    assert.equal(loop?.status, 'failed');
    assert.equal(loop?.error_category, 'fetch_error');
    const map = await get(`/api/v1/jobs/${body.job_id}/crawl-map`);
    assert.ok(
      map.entries.some(
        (e: { status: string; error_details: string }) =>
          e.status === 'skipped' && e.error_details === 'max_pages',
      ),
    );
  } finally {
    await site.close();
  }
});
