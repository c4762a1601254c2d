// Every request the browser makes passes the address policy, through the pool's filtering proxy. Two
// policies: the real one with ALLOW_PRIVATE_ADDRESSES=false (loopback fixtures are refused outright), and one
// whose isAllowed hook lets 127.0.0.1 stand in for a public host, so a page there can try to reach private
// addresses (127.0.0.2, the metadata address). Refused requests never leave the proxy.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { BrowserPool, createBrowserPool } from '../../activities/fetching/browser/browser-pool.js';
import type { ProxyDecision } from '../../activities/fetching/browser/filtering-proxy.js';
import { renderPage } from '../../activities/fetching/browser/render-page.js';
import { makeFetchPage } from '../../activities/fetching/fetch-page.js';
import { loadConfig } from '../../shared/config.js';
import { CategorizedError } from '../../shared/errors.js';
import type { ContentStore } from '../../shared/store/contents.js';
import { type FixtureSite, html, startFixtureSite } from '../support/fixture-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;
const OPTS = { timeoutMs: 3000, waitMs: 1500, maxBytes: 1024 * 1024, maxRedirects: 5 };

let site: FixtureSite;
let secret: FixtureSite; // the "private" server: 127.0.0.2, refused by the hook
let pool: BrowserPool;
const decisions: ProxyDecision[] = [];

before(async () => {
  site = await startFixtureSite();
  secret = await startFixtureSite('127.0.0.2');
  const privateUrl = `${secret.url}/secret`;
  secret.route('/secret', html('Secret', '<h1>internal data</h1>'));
  site.route(
    '/greedy',
    html(
      'Greedy',
      `<h1>Public page</h1><p>It tries to reach private addresses.</p>
      <img src="${privateUrl}.png"><script src="${privateUrl}.js"></script>
      <iframe src="file:///etc/passwd"></iframe>
      <script>
        fetch('http://169.254.169.254/latest/meta-data/').catch(() => {});
        fetch('${privateUrl}?via=fetch').catch(() => {});
      </script>`,
    ),
  );
  site.route('/to-private', (_req, res) => res.writeHead(302, { location: privateUrl }).end());
  site.route('/to-file', (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
  site.route(
    '/navigates-away',
    html(
      'Away',
      `<h1>Leaving</h1><script>setTimeout(() => { location.href = '${privateUrl}'; }, 50);</script>`,
    ),
  );
  pool = new BrowserPool({
    executablePath: CHROMIUM,
    maxPages: 1,
    recycleAfter: 100,
    policy: { allowPrivate: false, isAllowed: (ip) => ip === '127.0.0.1' },
    onProxyDecision: (d) => decisions.push(d),
  });
});

after(async () => {
  await pool?.close();
  await site.close();
  await secret.close();
});

const refusedHosts = () => decisions.filter((d) => !d.allowed).map((d) => d.host);

describe('the browser behind the filtering proxy', { skip }, () => {
  test("a page's sub-resources on private addresses are refused; the page itself renders", async () => {
    const doc = await renderPage(pool, `${site.url}/greedy`, OPTS);
    assert.equal(doc.status, 200);
    assert.match(doc.body, /Public page/);
    assert.deepEqual(secret.hits, []);
    assert.ok(refusedHosts().includes('127.0.0.2'), String(refusedHosts()));
    assert.ok(refusedHosts().includes('169.254.169.254'), String(refusedHosts()));
    // Loopback went through the proxy too (Chromium would bypass it without <-loopback>).
    assert.ok(decisions.some((d) => d.allowed && d.host === '127.0.0.1'));
  });

  test('a redirect of the document to a private address is ssrf_blocked', async () => {
    await assert.rejects(
      renderPage(pool, `${site.url}/to-private`, OPTS),
      (err: unknown) => err instanceof CategorizedError && err.category === 'ssrf_blocked',
    );
    assert.deepEqual(secret.hits, []);
  });

  test('a script sending the page to a private address fails the fetch as ssrf_blocked', async () => {
    await assert.rejects(
      renderPage(pool, `${site.url}/navigates-away`, OPTS),
      (err: unknown) => err instanceof CategorizedError && err.category === 'ssrf_blocked',
    );
    assert.deepEqual(secret.hits, []);
  });

  test('a redirect to file: is refused', async () => {
    await assert.rejects(
      renderPage(pool, `${site.url}/to-file`, OPTS),
      (err: unknown) => err instanceof CategorizedError && err.category === 'fetch_error',
    );
  });

  test('with ALLOW_PRIVATE_ADDRESSES=false, the worker pool refuses loopback in every mode', async () => {
    const config = loadConfig({
      ALLOW_PRIVATE_ADDRESSES: 'false',
      CHROMIUM_PATH: CHROMIUM,
      FETCH_TIMEOUT_MS: '3000',
    });
    const strict = createBrowserPool(config)!;
    const contents = { put: async () => {} } as unknown as ContentStore;
    const fetchPage = makeFetchPage({ config, contents, browser: strict, documents: undefined });
    const hitsBefore = site.hits.length;
    try {
      for (const fetchMode of ['dynamic', 'static', 'auto'] as const) {
        await assert.rejects(
          fetchPage({ jobId: 'j', url: `${site.url}/greedy`, fetchMode, contentId: `s-${fetchMode}` }),
          (err: unknown) => err instanceof ApplicationFailure && err.type === 'ssrf_blocked',
          fetchMode,
        );
      }
      assert.equal(strict.stats().launches, 1); // the dynamic case did go through the browser
    } finally {
      await strict.close();
    }
    assert.equal(site.hits.length, hitsBefore);
  });
});
