// Hostile pages cannot freeze the worker: HTML work runs in the HTML pool's threads under HTML_TIMEOUT_MS,
// and the quadratic spots of the cleaners are linear. A <pre> of 400,000 spaces through the text cleaner and
// 40,000 table-wrapper texts through the markdown cleaner finish at once (before: minutes on the worker's
// event loop); a page Readability needs minutes for ends with processing_timeout at the limit, and while it
// runs another extract on the same worker completes. The worker runs in its own process, started the way
// production starts it (so its threads load the TypeScript task module as it does): a frozen worker fails
// these tests by their time limits instead of freezing the test runner with it.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { spawnWorkerProcess, startTestService, type TestService } from '../../support/service.js';

const LIMIT_MS = 6_000;
/**
 * Readability walks a deep tree once per level: 2,500 nested divs take ~16 s on a quiet machine (measured
 * 2026-11-29; 1,500 took 6.8 s, too near the limit to be sure to pass it).
 */
const DEEP = `${'<div>'.repeat(2_500)}${'<p>Some words of text in a paragraph. </p>'.repeat(20)}${'</div>'.repeat(2_500)}`;

let svc: TestService;
let site: FixtureSite;
let worker: ChildProcess | null = null;

before(async () => {
  // An extract that cannot finish in time answers 202 after this, instead of waiting 120 s. The model sees
  // the first 1,000 characters of a page (the fake model server's own line regexes are no match for a line of
  // 400,000 spaces).
  svc = await startTestService({
    worker: false,
    // Production's two HTML threads: another extract goes on in the second while the first is held.
    env: {
      EXTRACT_WAIT_SECONDS: '30',
      HTML_TIMEOUT_MS: String(LIMIT_MS),
      LLM_MAX_CONTENT_CHARS: '1000',
      HTML_WORKERS: '2',
    },
  });
  site = await startFixtureSite();
  site.route('/spaces', html('Spaces', `<pre>${' '.repeat(400_000)}Text after the spaces.</pre>`));
  site.route(
    '/wrappers',
    html(
      'Wrappers',
      `<p>${'&lt;div class="joplin-table-wrapper"&gt;&lt;table&gt; '.repeat(40_000)}</p><p>The end.</p>`,
    ),
  );
  site.route('/deep', html('Deep', DEEP));
  site.route('/fast', html('Fast', '<h1>Fast page</h1><p>Ready.</p>'));
  worker = spawnWorkerProcess(svc.config, { OTEL_SDK_DISABLED: 'true' });
});
after(async () => {
  // A worker frozen in a regex (before the fix) handles no SIGTERM.
  worker?.kill('SIGKILL');
  await site?.close();
  await svc?.close();
});

const extract = (path: string, cleaner_chain?: { name: string }[]) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: {
      url: `${site.url}${path}`,
      schema: { title: 'string' },
      ...(cleaner_chain && { cleaner_chain }),
    },
  });

describe('HTML work is linear and bounded', () => {
  test('a <pre> of 400,000 spaces through the text cleaner finishes at once', {
    timeout: 60_000,
  }, async () => {
    const started = Date.now();
    const res = await extract('/spaces', [{ name: 'text' }]);
    // Before: `\s+$` retried from every space (minutes); the extract answered 202 after 30 s.
    assert.equal(res.statusCode, 200, `after ${Date.now() - started} ms: ${res.body}`);
  });

  test('40,000 table-wrapper texts through the markdown cleaner finish at once', {
    timeout: 60_000,
  }, async () => {
    const started = Date.now();
    const res = await extract('/wrappers');
    // Before: the wrapper regex scanned to the end of the page from every wrapper (about a minute).
    assert.equal(res.statusCode, 200, `after ${Date.now() - started} ms: ${res.body}`);
  });

  test('a page over HTML_TIMEOUT_MS ends with processing_timeout; the worker serves another extract meanwhile', {
    timeout: 90_000,
  }, async () => {
    let deepDone = false;
    const started = Date.now();
    const deep = extract('/deep', [{ name: 'readability' }]).finally(() => {
      deepDone = true;
    });
    for (let i = 0; i < 300 && !site.hits.includes('/deep'); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(site.hits.includes('/deep'), 'the deep page was fetched');
    await new Promise((r) => setTimeout(r, 500)); // its cleaning has begun

    const fast = await extract('/fast');
    // Before: the worker's event loop was inside Readability; nothing else ran for minutes.
    assert.equal(fast.statusCode, 200, fast.body);
    assert.equal(deepDone, false, 'the fast extract finished while the deep page was still being cleaned');

    const res = await deep;
    const ms = Date.now() - started;
    assert.equal(res.statusCode, 422, `after ${ms} ms: ${res.body}`);
    assert.equal(res.json().error_category, 'processing_timeout', res.body);
    assert.match(res.json().detail, /HTML_TIMEOUT_MS = 6000 ms/);
    assert.ok(ms < LIMIT_MS + 20_000, `ended after ${ms} ms`);
  });
});
