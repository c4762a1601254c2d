// robots.txt read as RFC 9309 says, through the real stack: a server error (5xx) means "disallow all", a 4xx
// means "no rules". A crawl of a site whose robots.txt answers 503 requests none of its pages and skips them
// as robots_disallowed; the same site answering 404 is crawled.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clearRobotsCache, robotsAllow } from '../../../activities/fetching/robots.js';
import { closeGuardedAgents } from '../../../shared/net/guarded-fetch.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
  await closeGuardedAgents();
});

/** A two-page site whose robots.txt answers `status` (with a body that would disallow nothing). */
async function siteWithRobots(status: number): Promise<FixtureSite> {
  const site = await startFixtureSite();
  site.route('/robots.txt', (_req, res) =>
    res.writeHead(status, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n'),
  );
  site.route(
    '/',
    html('Shop', '<main><h1>Shop</h1><p>Our kettles.</p><a class="item" href="/item">Kettle</a></main>'),
  );
  site.route('/item', html('Kettle', '<main><h1>Blue Kettle</h1><p>Price: 24.5. A fine kettle.</p></main>'));
  return site;
}

async function crawlToEnd(site: FixtureSite) {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl?wait=true&timeout=60',
    headers: svc.auth(),
    payload: {
      url: `${site.url}/`,
      schema: { name: 'string' },
      options: { follow_selector: 'a.item', max_depth: 1, respect_robots: true },
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as {
    status: string;
    data: { url: string; status: string; error_category: string | null }[];
  };
}

const pagesOf = (site: FixtureSite) => site.hits.filter((h) => h !== '/robots.txt');

describe('robots.txt status codes (RFC 9309 §2.3.1)', () => {
  test('a robots.txt answering 503 disallows the whole site: nothing is fetched, the seed is skipped', async () => {
    const site = await siteWithRobots(503);
    try {
      const body = await crawlToEnd(site);
      assert.equal(body.status, 'completed');
      assert.deepEqual(
        body.data.map((p) => [p.url, p.status, p.error_category]),
        [[`${site.url}/`, 'skipped', 'robots_disallowed']],
      );
      assert.deepEqual(pagesOf(site), [], 'no page of the site was requested');
      assert.ok(site.hits.includes('/robots.txt'));
    } finally {
      await site.close();
    }
  });

  test('a robots.txt answering 404 allows everything: the site is crawled', async () => {
    const site = await siteWithRobots(404);
    try {
      const body = await crawlToEnd(site);
      assert.equal(body.status, 'completed');
      const byUrl = new Map(body.data.map((p) => [p.url.replace(site.url, ''), p.status]));
      assert.equal(byUrl.get('/'), 'completed', JSON.stringify(body.data));
      assert.equal(byUrl.get('/item'), 'completed', JSON.stringify(body.data));
      assert.deepEqual(pagesOf(site).sort(), ['/', '/item']);
    } finally {
      await site.close();
    }
  });

  test('429 and an unreachable server disallow; 401/403 and 410 allow', async () => {
    const opts = { allowPrivate: true, timeoutMs: 3000 };
    for (const [status, allowed] of [
      [500, false],
      [502, false],
      [429, false],
      [401, true],
      [403, true],
      [410, true],
    ] as const) {
      const site = await siteWithRobots(status);
      try {
        assert.equal(await robotsAllow(`${site.url}/item`, opts), allowed, String(status));
      } finally {
        await site.close();
      }
    }
    // A server that is gone: the port no longer listens.
    const gone = await siteWithRobots(200);
    await gone.close();
    clearRobotsCache();
    assert.equal(await robotsAllow(`${gone.url}/item`, opts), false, 'connection refused');
  });

  test('only the first 500 KiB are read and parsed: a rule past them does not count', async () => {
    const site = await startFixtureSite();
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(600); // ~600 KB of comments
    site.route('/robots.txt', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`),
    );
    try {
      const opts = { allowPrivate: true, timeoutMs: 3000 };
      assert.equal(await robotsAllow(`${site.url}/early`, opts), false);
      assert.equal(await robotsAllow(`${site.url}/late`, opts), true);
    } finally {
      await site.close();
    }
  });
});
