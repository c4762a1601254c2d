// The cleaner chain's pure parts: the markdown and noop cleaners and the chain runner.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLEANERS, runChain } from '../../activities/clean-content.js';
import { CategorizedError } from '../../shared/errors.js';

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><style>body { color: red }</style><script>var tracking = 1;</script></head>
<body>
  <noscript>Please enable JavaScript</noscript>
  <h1>Blue Widget</h1>
  <p>Price: <strong>$19.99</strong></p>
  <ul><li>Light</li><li>Strong</li></ul>
  <p><a href="https://shop.example/reviews">Reviews</a> <img src="/w.png" alt="the widget"></p>
  <pre><code class="language-js">const a = 1;</code></pre>
  <svg><text>svg label</text></svg>
  <iframe src="https://ads.example/"></iframe>
  <template><p>template text</p></template>
  <canvas>canvas fallback</canvas>
  <p>Ships in 2 days.</p>
  <script>document.write('late script')</script>
</body></html>`;

describe('markdown cleaner', () => {
  test('turns a page into markdown: atx headings, dash bullets, links, images, fenced code', () => {
    assert.equal(
      CLEANERS.markdown!(PAGE, {}),
      [
        '# Blue Widget',
        '',
        'Price: **$19.99**',
        '',
        '-   Light',
        '-   Strong',
        '',
        '[Reviews](https://shop.example/reviews) ![the widget](/w.png)',
        '',
        '```js',
        'const a = 1;',
        '```',
        '',
        'Ships in 2 days.',
      ].join('\n'),
    );
  });

  test('drops scripts, styles, noscript, svg, iframes, templates and canvas with their text', () => {
    const out = CLEANERS.markdown!(PAGE, {});
    for (const noise of ['tracking', 'color: red', 'enable JavaScript', 'svg label', 'template text']) {
      assert.ok(!out.includes(noise), `"${noise}" should be gone`);
    }
    assert.ok(!out.includes('canvas fallback'));
    assert.ok(!out.includes('late script'));
  });

  test('a page of nothing but noise cleans to the empty string', () => {
    assert.equal(CLEANERS.markdown!('<script>x()</script><style>p{}</style>', {}), '');
  });

  test('collapses runs of blank lines, also the whitespace-only ones <br> runs leave', () => {
    assert.equal(CLEANERS.markdown!('<div>a</div>\n\n\n\n\n<div>b</div>', {}), 'a\n\nb');
    assert.equal(CLEANERS.markdown!('<p>a</p><br><br><br><br><p>b</p>', {}), 'a\n\nb');
    // A single <br> stays a markdown hard line break.
    assert.equal(CLEANERS.markdown!('<p>a<br>b</p>', {}), 'a  \nb');
  });

  test('trims the result', () => {
    assert.equal(CLEANERS.markdown!('   <p>  hello  </p>   ', {}), 'hello');
  });
});

describe('noop cleaner', () => {
  test('returns its input unchanged', () => {
    assert.equal(CLEANERS.noop!(PAGE, {}), PAGE);
    assert.equal(CLEANERS.noop!('', { anything: true }), '');
  });
});

describe('runChain', () => {
  test('an empty chain leaves the content as it is', () => {
    assert.equal(runChain('<p>x</p>', []), '<p>x</p>');
  });

  test('applies the steps in order', () => {
    assert.equal(runChain('<h2>Hi</h2>', [{ name: 'noop' }, { name: 'markdown' }]), '## Hi');
    assert.equal(runChain('<h2>Hi</h2>', [{ name: 'markdown' }, { name: 'noop', options: {} }]), '## Hi');
    // Order matters: a second markdown pass reads the first one's output as HTML text.
    assert.equal(runChain('<p>a</p><p>b</p>', [{ name: 'markdown' }]), 'a\n\nb');
    assert.equal(runChain('<p>a</p><p>b</p>', [{ name: 'markdown' }, { name: 'markdown' }]), 'a b');
  });

  test('an unknown cleaner is invalid input naming it', () => {
    assert.throws(
      () => runChain('<p>x</p>', [{ name: 'markdown' }, { name: 'sparkle' }]),
      (err: unknown) =>
        err instanceof CategorizedError && err.category === 'invalid_input' && /"sparkle"/.test(err.message),
    );
  });

  test('names inherited from Object.prototype are not cleaners', () => {
    for (const name of ['toString', 'constructor', 'hasOwnProperty']) {
      assert.throws(
        () => runChain('x', [{ name }]),
        (err: unknown) => err instanceof CategorizedError && err.category === 'invalid_input',
        name,
      );
    }
  });
});
