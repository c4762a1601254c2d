// A render is bounded by its renderer's real memory, not only its script heap: 512 MB held in Uint8Arrays (which
// V8's heap counters leave out), in the page, in a dedicated worker or in a cross-site frame, ends the render
// with content_too_large once a renderer passes the script heap budget + 128 MiB, its renderer killed; the page
// is not kept and the same browser renders the next page. Real Chromium; skipped when there is none.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BrowserPool } from '../../../activities/fetching/browser/browser-pool.js';
import { scriptHeapBudget } from '../../../activities/fetching/browser/dom-size-watch.js';
import { type RenderOptions, renderPage } from '../../../activities/fetching/browser/render-page.js';
import { CategorizedError } from '../../../shared/errors.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;
const MiB = 1024 * 1024;
// Waits long enough for the hoard to finish on a machine whose cores are taken by other work (at load 24 a
// 4 s wait ended before the renderer had grown past its budget). A render ends at its renderer's kill, not
// at the end of the wait, so a passing test waits no longer.
const OPTS: RenderOptions = { timeoutMs: 20_000, waitMs: 20_000, maxBytes: MiB, maxRedirects: 5 };
/** The documented bound: the script heap budget (256 MiB here) + 128 MiB. */
const BUDGET = scriptHeapBudget(OPTS.maxBytes) + 128 * MiB;

// 16 × 32 MiB, each written so the memory is really taken, one every 20 ms; the network kept busy.
const HOARD = `const kept = []; let n = 0;
  const t = setInterval(() => {
    if (n++ >= 16) return clearInterval(t);
    const a = new Uint8Array(32 * 1024 * 1024); a.fill(7); kept.push(a);
  }, 20);`;
const BUSY = `<script>setInterval(() => fetch('/tick?' + Math.random()).catch(() => {}), 150);</script>`;

let site: FixtureSite;
let other: FixtureSite;
before(async () => {
  site = await startFixtureSite();
  other = await startFixtureSite('127.0.0.2');
  site.route('/tick', (_req, res) => res.writeHead(204).end());
  site.route('/typed', html('Typed', `<h1>Typed arrays</h1><script>${HOARD}</script>${BUSY}`));
  site.route(
    '/typed-worker',
    html('Worker', `<h1>In a worker</h1><script>new Worker('/hoard.js');</script>${BUSY}`),
  );
  site.route('/hoard.js', (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(HOARD),
  );
  site.route(
    '/typed-frame',
    html('Frame', `<h1>In a frame</h1><iframe src="${other.url}/hoard"></iframe>${BUSY}`),
  );
  other.route('/hoard', html('Hoard', `<p>ad</p><script>${HOARD}</script>`));
  site.route(
    '/plain',
    html('Plain', `<main><h1>Blue Kettle</h1>${'<p>A kettle, price 24.5.</p>'.repeat(20)}</main>`),
  );
});
after(async () => {
  await site?.close();
  await other?.close();
});

describe('renderPage bounds the renderer process', { skip }, () => {
  let pool: BrowserPool;
  before(() => {
    pool = new BrowserPool({
      executablePath: CHROMIUM,
      maxPages: 1,
      recycleAfter: 100,
      policy: { allowPrivate: true },
    });
  });
  after(async () => pool?.close());

  for (const path of ['/typed', '/typed-worker', '/typed-frame']) {
    test(`${path}: 512 MB of Uint8Arrays ends content_too_large, and the browser renders on`, async () => {
      const kills = pool.stats().rendererKills;
      await assert.rejects(renderPage(pool, `${site.url}${path}`, OPTS), (err: unknown) => {
        assert.ok(err instanceof CategorizedError, String(err));
        assert.equal(err.category, 'content_too_large', err.message);
        assert.equal(err.details?.maxRendererBytes, BUDGET);
        assert.ok(Number(err.details?.rendererBytes) > BUDGET);
        return true;
      });
      const stats = pool.stats();
      assert.equal(stats.rendererKills, kills + 1);
      assert.equal(stats.idlePages, 0, 'the page was kept');
      const doc = await renderPage(pool, `${site.url}/plain`, OPTS);
      assert.match(doc.body, /Blue Kettle/);
      assert.equal(pool.stats().launches, 1, 'the browser was replaced');
    });
  }
});

describe('a dynamic-mode extract of a page hoarding memory', { skip }, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      env: { FETCH_MAX_BYTES: String(MiB), DYNAMIC_WAIT_MS: '20000', CHROMIUM_PATH: CHROMIUM },
    });
  });
  after(async () => svc?.close());

  const extract = (path: string) =>
    svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { url: `${site.url}${path}`, schema: { title: 'string' }, fetch_mode: 'dynamic' },
    });

  test('ends with content_too_large (422), and the worker renders the next page', async () => {
    const res = await extract('/typed');
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_category, 'content_too_large');
    const ok = await extract('/plain');
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.title, 'Blue Kettle');
  });
});
