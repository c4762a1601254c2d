// The fetchPage activity in each mode against local fixture pages, with the real Chromium for dynamic and
// auto. Every failure has its own category; none is an empty success. Fixtures are on loopback, so these
// tests allow private addresses explicitly (the address policy has its own tests).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { BrowserPool } from '../../activities/fetching/browser/browser-pool.js';
import { type FetchPageResult, makeFetchPage } from '../../activities/fetching/fetch-page.js';
import { loadConfig } from '../../shared/config.js';
import type { ContentDoc, ContentStore } from '../../shared/store/contents.js';
import { type FixtureSite, html, startFixtureSite } from '../support/fixture-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;
const MAX_BYTES = 64 * 1024;

const config = loadConfig({
  ALLOW_PRIVATE_ADDRESSES: 'true',
  FETCH_TIMEOUT_MS: '2000',
  FETCH_MAX_BYTES: String(MAX_BYTES),
  FETCH_MAX_REDIRECTS: '5',
  DYNAMIC_WAIT_MS: '2000',
  CHROMIUM_PATH: CHROMIUM,
});
const stored = new Map<string, ContentDoc>();
const contents = { put: async (doc: ContentDoc) => void stored.set(doc._id, doc) } as unknown as ContentStore;
let site: FixtureSite;
let pool: BrowserPool;
let fetchPage: ReturnType<typeof makeFetchPage>;
let n = 0;

const ARTICLE = `<article><h1>Plain Widget</h1>${'<p>The plain widget is sold here, described in plain HTML.</p>'.repeat(12)}</article>`;
// Renders after fetching its data, as single-page apps do.
const APP = `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script>
  fetch('/api/widget').then((r) => r.json()).then((w) => {
    document.getElementById('root').innerHTML = '<h1>' + w.name + '</h1><p>Price: ' + w.price + '</p>';
  });
</script></body></html>`;
const NOSCRIPT = `<!doctype html><html><head><title>Shop</title></head><body>
  <noscript>You need to enable JavaScript to run this app.</noscript><div class="mount"></div>
  <script>document.querySelector('.mount').innerHTML = '<h1>Scripted Widget</h1><p>In stock.</p>';</script>
</body></html>`;
const CLOUDFLARE = `<!doctype html><html><head><title>Just a moment...</title></head><body>
  <h1>Checking if the site connection is secure</h1>
  <form id="challenge-form" action="/?__cf_chl_f_tk=x" method="POST"><input type="hidden" name="md"></form>
</body></html>`;
const CAPTCHA = html('Verify', '<h1>One more step</h1><iframe src="/recaptcha/api2/anchor?k=x"></iframe>');

const send = (res: ServerResponse, status: number, type: string, body: string | Buffer) =>
  res.writeHead(status, { 'content-type': type }).end(body);

before(async () => {
  site = await startFixtureSite();
  site.route('/plain', html('Plain', ARTICLE));
  site.route('/app', APP);
  site.route('/api/widget', (_req, res) =>
    send(res, 200, 'application/json', '{"name":"Rendered Widget","price":"$5"}'),
  );
  site.route('/noscript', NOSCRIPT);
  site.route('/wall', (_req, res) => send(res, 503, 'text/html', CLOUDFLARE));
  site.route('/captcha', CAPTCHA);
  site.route('/recaptcha/api2/anchor', html('captcha', '<div>tick</div>'));
  site.route('/doc.pdf', (_req, res) => send(res, 200, 'application/pdf', '%PDF-1.4\n%âãÏÓ\n'));
  site.route('/image.png', (_req, res) =>
    send(res, 200, 'image/png', Buffer.from('89504e470d0a1a0a', 'hex')),
  );
  site.route('/untyped.pdf', (_req, res) => res.writeHead(200).end('%PDF-1.4\n'));
  site.route('/huge', (_req, res) => send(res, 200, 'text/html', html('Huge', 'x'.repeat(4 * MAX_BYTES))));
  site.route('/huge-chunked', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }); // no length: only counting reveals the size
    res.write('<!doctype html><html><body><p>');
    let left = 8;
    const pump = () => {
      if (res.destroyed) return;
      if (left-- === 0) return void res.end('</p></body></html>');
      res.write('y'.repeat(MAX_BYTES / 2));
      setTimeout(pump, 10);
    };
    pump();
  });
  site.route('/loop/a', (_req, res) => res.writeHead(302, { location: '/loop/b' }).end());
  site.route('/loop/b', (_req, res) => res.writeHead(302, { location: '/loop/a' }).end());
  site.route('/slow', () => {}); // never answers
  site.route('/empty', '');
  site.route('/gone', (_req, res) => send(res, 404, 'text/html', html('Not found', '<h1>Not found</h1>')));
  pool = new BrowserPool({
    executablePath: CHROMIUM,
    maxPages: 2,
    recycleAfter: 100,
    policy: { allowPrivate: true },
  });
  fetchPage = makeFetchPage({ config, contents, browser: pool, documents: undefined });
});

after(async () => {
  await pool?.close();
  await site.close();
});

function fetch(path: string, fetchMode: 'static' | 'dynamic' | 'auto'): Promise<FetchPageResult> {
  return fetchPage({ jobId: 'job-1', url: `${site.url}${path}`, fetchMode, contentId: `c${++n}` });
}

function failsWith(category: string, reason?: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ApplicationFailure, `expected an ApplicationFailure, got ${String(err)}`);
    assert.equal(err.type, category, err.message);
    if (reason) assert.equal((err.details?.[0] as { reason?: string })?.reason, reason);
    return true;
  };
}

const body = (res: FetchPageResult) => stored.get(res.contentId)!.body;

describe('fetch modes', { skip }, () => {
  test('a script-rendered page: static sees the empty shell, dynamic and auto the content', async () => {
    await assert.rejects(fetch('/app', 'static'), failsWith('insufficient_content'));
    const dynamic = await fetch('/app', 'dynamic');
    assert.equal(dynamic.fetchMode, 'dynamic');
    assert.match(body(dynamic), /<h1>Rendered Widget<\/h1><p>Price: \$5<\/p>/);
    const auto = await fetch('/app', 'auto');
    assert.equal(auto.fetchMode, 'dynamic');
    assert.match(body(auto), /Rendered Widget/);
    assert.deepEqual(
      [auto.finalUrl, auto.statusCode, auto.contentType],
      [`${site.url}/app`, 200, 'text/html'],
    );
    assert.equal(stored.get(auto.contentId)!.kind, 'raw');
  });

  test('a plain page: auto stays static and never opens a browser page', async () => {
    const served = pool.stats().pagesServed;
    const auto = await fetch('/plain', 'auto');
    assert.equal(auto.fetchMode, 'static');
    assert.match(body(auto), /Plain Widget/);
    assert.equal(pool.stats().pagesServed, served);
    const dynamic = await fetch('/plain', 'dynamic');
    assert.equal(dynamic.fetchMode, 'dynamic');
    assert.match(body(dynamic), /Plain Widget/);
  });

  test('a noscript wall switches auto to the browser', async () => {
    await assert.rejects(fetch('/noscript', 'static'), failsWith('insufficient_content'));
    const auto = await fetch('/noscript', 'auto');
    assert.equal(auto.fetchMode, 'dynamic');
    assert.match(body(auto), /Scripted Widget/);
  });

  test('bot walls and captchas are blocked in every mode', async () => {
    for (const mode of ['static', 'dynamic', 'auto'] as const) {
      await assert.rejects(fetch('/wall', mode), failsWith('blocked'), `wall ${mode}`);
      await assert.rejects(fetch('/captcha', mode), failsWith('blocked'), `captcha ${mode}`);
    }
  });

  test('non-HTML content is unsupported_content in every mode', async () => {
    for (const mode of ['static', 'dynamic', 'auto'] as const) {
      for (const path of ['/doc.pdf', '/image.png']) {
        await assert.rejects(fetch(path, mode), failsWith('unsupported_content'), `${path} ${mode}`);
      }
    }
    await assert.rejects(fetch('/untyped.pdf', 'static'), failsWith('unsupported_content'));
  });

  test('an oversized body is content_too_large, declared or counted', async () => {
    for (const mode of ['static', 'dynamic', 'auto'] as const) {
      for (const path of ['/huge', '/huge-chunked']) {
        await assert.rejects(fetch(path, mode), failsWith('content_too_large'), `${path} ${mode}`);
      }
    }
  });

  test('a redirect loop is a fetch_error', async () => {
    for (const mode of ['static', 'dynamic', 'auto'] as const) {
      await assert.rejects(fetch('/loop/a', mode), failsWith('fetch_error', 'redirect_loop'), mode);
    }
  });

  test('a slow page is a fetch_timeout', async () => {
    for (const mode of ['static', 'dynamic'] as const) {
      const started = Date.now();
      await assert.rejects(fetch('/slow', mode), failsWith('fetch_timeout'), mode);
      assert.ok(Date.now() - started < config.FETCH_TIMEOUT_MS + 8_000, `${mode} took too long`);
    }
  });

  test('an empty page and an error status are failures, not empty successes', async () => {
    for (const mode of ['static', 'dynamic', 'auto'] as const) {
      await assert.rejects(fetch('/empty', mode), failsWith('insufficient_content'), `empty ${mode}`);
      await assert.rejects(fetch('/gone', mode), failsWith('http_status'), `404 ${mode}`);
    }
  });

  test('without a browser, dynamic is unavailable and auto fails on an app shell', async () => {
    const noBrowser = makeFetchPage({ config, contents, browser: undefined, documents: undefined });
    const input = (path: string, fetchMode: 'dynamic' | 'auto') =>
      noBrowser({ jobId: 'job-2', url: `${site.url}${path}`, fetchMode, contentId: `c${++n}` });
    await assert.rejects(input('/plain', 'dynamic'), failsWith('fetch_error', 'browser_unavailable'));
    await assert.rejects(input('/app', 'auto'), failsWith('insufficient_content'));
    assert.equal((await input('/plain', 'auto')).fetchMode, 'static');
  });
});
