// Kept browser pages (scoped-pages.ts, render-page.ts): a render without steps reuses a page of its own scope
// (one tenant, one site session or none), never another's; a failed render's page is not kept; a page that
// runs no script is read once parsed while a scripted one still gets its wait; images and fonts are not
// downloaded unless a screenshot is asked for. Real Chromium; skipped when there is none.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { runAsTenant } from '../../activities/common/tenant-share.js';
import { BrowserPool } from '../../activities/fetching/browser/browser-pool.js';
import { type RenderOptions, renderPage } from '../../activities/fetching/browser/render-page.js';
import type { FetchSession } from '../../activities/fetching/browser/session-scope.js';
import { CategorizedError } from '../../shared/errors.js';
import { type FixtureSite, html, startFixtureSite } from '../support/fixture-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;
const OPTS: RenderOptions = { timeoutMs: 5000, waitMs: 3000, maxBytes: 1024 * 1024, maxRedirects: 5 };
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

let site: FixtureSite;
before(async () => {
  site = await startFixtureSite();
  // Sets a cookie; /echo shows the Cookie header it was sent.
  site.route('/set', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'seen=tenant-a; Path=/' })
      .end(html('Set', '<h1>Cookie set</h1>')),
  );
  site.route('/echo', (req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(html('Echo', `<h1>Cookies</h1><p id="c">[${req.headers.cookie ?? ''}]</p>`)),
  );
  site.route(
    '/late',
    html(
      'Late',
      '<h1>Late</h1><script>setTimeout(() => { document.body.insertAdjacentHTML("beforeend", "<p>written by a script</p>"); }, 150);</script>',
    ),
  );
  site.route(
    '/handler',
    html(
      'Handler',
      '<h1>Handler</h1><body onload="setTimeout(() => document.body.append(\'from onload\'), 150)">',
    ),
  );
  site.route('/pictures', html('Pictures', '<h1>Pictures</h1><img src="/pixel.png" alt="a pixel">'));
  site.route('/pixel.png', (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL));
  site.route('/slow', () => {}); // never answers
});
after(() => site.close());

const cookiesSeen = (body: string) => /\[(.*)\]/.exec(body)?.[1];

describe('kept browser pages', { skip }, () => {
  let pool: BrowserPool;
  before(() => {
    pool = new BrowserPool({
      executablePath: CHROMIUM,
      maxPages: 2,
      recycleAfter: 100,
      policy: { allowPrivate: true },
    });
  });
  after(async () => pool?.close());

  test("a tenant's next page reuses its page; another tenant's and a site session's never see its cookies", async () => {
    await runAsTenant('tenant-a', () => renderPage(pool, `${site.url}/set`, OPTS));
    assert.equal(pool.stats().idlePages, 1);
    const again = await runAsTenant('tenant-a', () => renderPage(pool, `${site.url}/echo`, OPTS));
    assert.equal(cookiesSeen(again.body), 'seen=tenant-a');
    const other = await runAsTenant('tenant-b', () => renderPage(pool, `${site.url}/echo`, OPTS));
    assert.equal(cookiesSeen(other.body), '');
    const session: FetchSession = {
      origin: site.url,
      hostname: '127.0.0.1',
      cookies: [{ name: 'member', value: 'yes', path: '/', http_only: true }],
      headers: {},
    };
    const withSession = await runAsTenant('tenant-a', () =>
      renderPage(pool, `${site.url}/echo`, { ...OPTS, session }),
    );
    assert.equal(cookiesSeen(withSession.body), 'member=yes');
    // And the session's cookie stays in its own scope (tenant A's plain page may have been closed meanwhile:
    // at most two pages wait).
    const plain = await runAsTenant('tenant-a', () => renderPage(pool, `${site.url}/echo`, OPTS));
    assert.doesNotMatch(cookiesSeen(plain.body) ?? '', /member/);
    assert.ok(pool.stats().idlePages <= 2, 'at most maxPages pages wait');
  });

  test("a failed render's page is not kept", async () => {
    const idle = pool.stats().idlePages;
    await assert.rejects(
      runAsTenant('tenant-c', () =>
        renderPage(pool, `${site.url}/slow`, { ...OPTS, timeoutMs: 300, waitMs: 0 }),
      ),
      (err: unknown) => err instanceof CategorizedError && err.category === 'fetch_timeout',
    );
    assert.ok(pool.stats().idlePages <= idle);
    const ok = await runAsTenant('tenant-c', () => renderPage(pool, `${site.url}/echo`, OPTS));
    assert.equal(ok.status, 200);
  });

  test('a scripted page still gets its wait: what a script or an inline handler writes later is read', async () => {
    const late = await renderPage(pool, `${site.url}/late`, OPTS);
    assert.match(late.body, /written by a script/);
    const handler = await renderPage(pool, `${site.url}/handler`, OPTS);
    assert.match(handler.body, /from onload/);
  });

  test('images are not downloaded for reading, but are for a screenshot', async () => {
    const count = () => site.hits.filter((h) => h === '/pixel.png').length;
    const before = count();
    const doc = await renderPage(pool, `${site.url}/pictures`, OPTS);
    assert.match(doc.body, /<img src="\/pixel.png"/);
    assert.equal(count(), before);
    const shot = await renderPage(pool, `${site.url}/pictures`, {
      ...OPTS,
      actions: [{ kind: 'screenshot', full_page: false }],
    });
    assert.equal(shot.screenshots?.length, 1);
    assert.equal(count(), before + 1);
  });
});

describe('with BROWSER_PAGE_IDLE_MS=0', { skip }, () => {
  test('no page is kept: every render starts in a fresh context', async () => {
    const pool = new BrowserPool({
      executablePath: CHROMIUM,
      maxPages: 2,
      recycleAfter: 100,
      idlePageMs: 0,
      policy: { allowPrivate: true },
    });
    try {
      await runAsTenant('tenant-a', () => renderPage(pool, `${site.url}/set`, OPTS));
      assert.equal(pool.stats().idlePages, 0);
      const next = await runAsTenant('tenant-a', () => renderPage(pool, `${site.url}/echo`, OPTS));
      assert.equal(cookiesSeen(next.body), '');
    } finally {
      await pool.close();
    }
  });
});

describe('kept pages and browser recycling', { skip }, () => {
  test('a retired browser closes with its kept pages; the next browser keeps pages anew', async () => {
    const pool = new BrowserPool({
      executablePath: CHROMIUM,
      maxPages: 1,
      recycleAfter: 2,
      policy: { allowPrivate: true },
    });
    try {
      await renderPage(pool, `${site.url}/echo`, OPTS);
      const first = pool.stats().browserPids[0]!;
      assert.equal(pool.stats().idlePages, 1);
      await renderPage(pool, `${site.url}/echo`, OPTS); // the second page retires the first browser
      await renderPage(pool, `${site.url}/echo`, OPTS);
      const stats = pool.stats();
      assert.equal(stats.launches, 2);
      assert.ok(!stats.browserPids.includes(first), 'the retired browser still runs');
      assert.equal(stats.idlePages, 1);
    } finally {
      await pool.close();
    }
  });
});
