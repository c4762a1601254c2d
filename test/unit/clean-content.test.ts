// The clean activity and what it exports: the markdown and noop cleaners and the chain runner (each
// cleaner's steps are tested under test/unit/cleaners/).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { load } from 'cheerio';
import type { ActivityDeps } from '../../activities/fetching/deps.js';
import { type CleanContentResult, makeCleanContent } from '../../activities/reading/clean-content.js';
import { CLEANERS, runChain } from '../../activities/reading/cleaners/index.js';
import { createHtmlPool } from '../../activities/reading/html-pool/pool.js';
import { CategorizedError } from '../../shared/errors.js';
import type { ContentDoc, ContentStore } from '../../shared/store/contents.js';

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
    assert.equal(CLEANERS.noop!(''), '');
  });

  test('takes no options', () => {
    assert.throws(
      () => CLEANERS.noop!('', { anything: true }),
      (err: unknown) => err instanceof CategorizedError && err.details?.location === 'options.anything',
    );
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

  test('a page parsed already is cleaned from that parse, once: the next cleaner parses its own input', () => {
    const html = '<h2>Hi</h2>';
    // A parse that differs from the HTML shows which one the cleaner read.
    const $ = load(html);
    $('h2').text('From the parse');
    assert.equal(runChain(html, [{ name: 'markdown' }], { parsed: { html, $ } }), '## From the parse');
    const context = { parsed: { html, $: load(html) } };
    assert.equal(
      runChain(html, [{ name: 'noop' }, { name: 'html' }, { name: 'markdown' }], context),
      '## Hi',
    );
    assert.equal(context.parsed, undefined, 'taken by the first cleaner that parses');
    // Other HTML than the parse's is parsed afresh.
    assert.equal(runChain('<h3>Other</h3>', [{ name: 'markdown' }], { parsed: { html, $ } }), '### Other');
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

describe('cleanContent activity', () => {
  const html = createHtmlPool({ HTML_WORKERS: 1, HTML_TIMEOUT_MS: 15_000 });
  after(() => html.close());

  function setup(source: Partial<ContentDoc>) {
    const docs = new Map<string, ContentDoc>();
    docs.set('raw_1', {
      _id: 'raw_1',
      job_id: 'job_1',
      kind: 'raw',
      url: 'https://shop.example/w',
      final_url: 'https://shop.example/products/w',
      content_type: 'text/html',
      status_code: 200,
      body: PAGE,
      created_at: '2026-11-23T10:00:00.000Z',
      ...source,
    });
    const contents = {
      get: async (id: string) => docs.get(id) ?? assert.fail(`no content ${id}`),
      put: async (doc: ContentDoc) => void docs.set(doc._id, doc),
    } as unknown as ContentStore;
    const cleanContent = makeCleanContent({ contents, html } as unknown as ActivityDeps);
    const run = (chain: { name: string; options?: Record<string, unknown> }[]): Promise<CleanContentResult> =>
      new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR', () => {}) }).run(cleanContent, {
        jobId: 'job_1',
        sourceId: 'raw_1',
        targetId: 'clean_1',
        chain,
      });
    return { docs, run };
  }

  test('stores the cleaned page under the target id and reports its size', async () => {
    const { docs, run } = setup({});
    const result = await run([{ name: 'markdown' }]);
    const cleaned = docs.get('clean_1')!;
    assert.equal(cleaned.kind, 'cleaned');
    assert.equal(result.contentId, 'clean_1');
    assert.equal(result.chars, cleaned.body.length);
    assert.ok(cleaned.body.startsWith('# Blue Widget'));
  });

  test("relative URLs resolve against the page's final URL", async () => {
    const { docs, run } = setup({});
    await run([{ name: 'markdown' }]);
    assert.ok(docs.get('clean_1')!.body.includes('![the widget](https://shop.example/w.png)'));
  });

  test('plain text pages skip the chain', async () => {
    const { docs, run } = setup({ content_type: 'text/plain', body: 'just <b>text</b>' });
    await run([{ name: 'markdown' }]);
    assert.equal(docs.get('clean_1')!.body, 'just <b>text</b>');
  });

  test('a page that cleans to nothing is insufficient_content; a bad chain is invalid_input', async () => {
    await assert.rejects(setup({ body: '<script>x()</script>' }).run([{ name: 'markdown' }]), {
      type: 'insufficient_content',
    });
    await assert.rejects(setup({}).run([{ name: 'sparkle' }]), { type: 'invalid_input', nonRetryable: true });
  });
});
