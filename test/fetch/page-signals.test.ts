// The HTML scanner behind the app-shell and bot-wall checks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanPage } from '../../activities/reading/page-signals.js';

test('visible text leaves out head, scripts, styles, noscript and templates', () => {
  const signals = scanPage(`<!doctype html><html><head><title> Blue  Widget </title><style>p{}</style>
    <script>var hidden = "script text";</script></head>
    <body><h1>Blue Widget</h1><noscript>Please enable JavaScript</noscript>
    <template><p>template text</p></template><p>Price: <b>$19.99</b></p></body></html>`);
  assert.equal(signals.title, 'Blue Widget');
  assert.equal(signals.text, 'Blue Widget Price: $19.99');
  assert.ok(signals.textLength >= 'Blue WidgetPrice: $19.99'.length);
  assert.equal(signals.noscriptText, 'Please enable JavaScript');
  assert.equal(signals.scripts, 1);
  assert.deepEqual(signals.emptyMountPoints, []);
});

test('empty mount points of client-side apps are reported, filled ones are not', () => {
  const shell = scanPage(
    '<body><div id="root"></div><div id="app">Loading</div><app-root></app-root><script src="/main.js"></script></body>',
  );
  assert.deepEqual(shell.emptyMountPoints, ['#root', 'app-root']);
  const rendered = scanPage('<body><div id="__next"><main><h1>Hi</h1></main></div></body>');
  assert.deepEqual(rendered.emptyMountPoints, []);
  const unclosed = scanPage('<body><div id="root">');
  assert.deepEqual(unclosed.emptyMountPoints, ['#root']);
});

test('iframes, ids, classes, form actions and script sources are collected as markers', () => {
  const signals = scanPage(`<body><form id="challenge-form" action="/cdn-cgi/challenge-platform/x">
    <div class="G-Recaptcha"></div></form><iframe src="https://www.google.com/recaptcha/api2/anchor"></iframe>
    <script src="https://example.test/app.js"></script></body>`);
  assert.deepEqual(signals.iframeSrcs, ['https://www.google.com/recaptcha/api2/anchor']);
  for (const marker of [
    'challenge-form',
    '/cdn-cgi/challenge-platform/x',
    'g-recaptcha',
    'example.test/app.js',
  ]) {
    assert.ok(signals.markers.includes(marker), marker);
  }
});

test('a body without a closed head is still read, and entities are decoded', () => {
  const signals = scanPage('<html><head><title>T</title><body><p>caf&eacute; &amp; <b>bar</b></p>');
  assert.equal(signals.text, 'café & bar');
});
