// When auto mode renders a page: the static HTML holds an app shell, an empty body or a noscript wall.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { needsScripts } from '../../activities/fetching/browser/app-shell.js';
import { scanPage } from '../../activities/reading/page-signals.js';

const need = (body: string) =>
  needsScripts(scanPage(`<!doctype html><html><head></head><body>${body}</body></html>`));
const article = `<article><h1>Title</h1>${'<p>A real paragraph of text that a reader came for.</p>'.repeat(20)}</article>`;

test('an empty body needs scripts', () => {
  assert.equal(need(''), 'empty_body');
  assert.equal(need('<script src="/bundle.js"></script>'), 'empty_body');
});

test('an empty mount point with little text is an app shell', () => {
  assert.equal(
    need('<header>Shop</header><div id="root"></div><script src="/main.js"></script>'),
    'app_shell',
  );
  assert.equal(need('<app-root></app-root>'), 'app_shell');
});

test('a noscript wall is recognised in its usual wordings', () => {
  for (const wall of [
    'You need to enable JavaScript to run this app.',
    'Please turn on JavaScript in your browser.',
    'This site requires JavaScript.',
    'JavaScript is disabled in your browser.',
  ]) {
    assert.equal(need(`<noscript>${wall}</noscript><div class="x">Loading…</div>`), 'noscript_wall', wall);
  }
});

test('a little text and a script is a script shell', () => {
  assert.equal(need('<div class="spinner">Loading…</div><script>boot()</script>'), 'script_shell');
});

test('a page with real text stays static, whatever scripts and noscript it carries', () => {
  assert.equal(need(article), null);
  assert.equal(need(`<noscript>Please enable JavaScript</noscript>${article}<script>track()</script>`), null);
  assert.equal(need(`<div id="root">${article}</div>`), null);
  assert.equal(need('<h1>Short page</h1><p>Only a little text, and no scripts at all.</p>'), null);
});
