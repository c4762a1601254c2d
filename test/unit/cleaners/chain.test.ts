// Every cleaner end to end on a real-shaped page (article between nav, ads, sidebar and footer; a table;
// links and images; a <title>), their options, and the chain runner.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CLEANERS, runChain } from '../../../activities/reading/cleaners/index.js';
import { CLEANER_NAMES } from '../../../shared/cleaners.js';
import { CategorizedError } from '../../../shared/errors.js';

const PAGE = readFileSync(new URL('../../fixtures/pages/article.html', import.meta.url), 'utf8');
const PAGE_URL = 'https://widgets.example/reviews/blue-widget';
const clean = (chain: { name: string; options?: Record<string, unknown> }[]) =>
  runChain(PAGE, chain, { baseUrl: PAGE_URL });

const HEAD_TEXT = ['Blue Widget review | Widget Weekly', 'dataLayer', '"@type"', 'We tested the Blue Widget'];
const SPECS_TABLE = [
  '| Model | Weight | Battery | Price |',
  '| --- | --- | --- | --- |',
  '| Blue Widget | 120 g | 5 days | $19.99 |',
  '| Blue Widget Pro | 135 g | 7 days | $29.99 |',
  '| Both models ship with a USB-C cable |     |     | free |',
].join('\n');

const invalidAt = (location: string) => (err: unknown) =>
  err instanceof CategorizedError && err.category === 'invalid_input' && err.details?.location === location;

describe('markdown cleaner', () => {
  const md = clean([{ name: 'markdown' }]);

  test('nothing from <head> leaks: no title, no scripts, no JSON-LD, no meta description', () => {
    for (const leak of HEAD_TEXT) assert.ok(!md.includes(leak), leak);
  });

  test('the table keeps its rows and columns, a spanning cell included', () => {
    assert.ok(md.includes(`Blue Widget specifications\n\n${SPECS_TABLE}`), md);
  });

  test('links and images are kept with absolute URLs; javascript: links keep only their text', () => {
    assert.ok(md.includes('[setup guide](https://widgets.example/guides/widget-setup)'));
    assert.ok(md.includes('![The Blue Widget on a desk](https://widgets.example/reviews/blue-widget.jpg)'));
    const whole = clean([{ name: 'markdown', options: { drop_boilerplate: false } }]);
    assert.ok(whole.includes('-   Search') && !whole.includes('javascript:'));
  });

  test('page chrome goes by default (navigation, site header, sidebar, footer and its form); the rest stays', () => {
    for (const gone of [
      'About us',
      'Widget Weekly logo',
      'Related reviews',
      'All rights reserved',
      'Subscribe',
      // The leaderboard ad goes by its class name ("ad ad-top").
      'GadgetMart',
    ])
      assert.ok(!md.includes(gone), gone);
    assert.ok(md.includes('Blue Widget specifications'));
    // The article's pager is navigation too, unless kept (crawls keep their next-page selectors).
    assert.ok(!md.includes('Next page'));
    const kept = clean([{ name: 'markdown', options: { keep_selectors: ['a.next'] } }]);
    assert.ok(kept.endsWith('[Next page](https://widgets.example/reviews/page-2.html)'), kept);
  });

  test('drop_boilerplate: false is the whole page: navigation, ads and footer are still there', () => {
    const whole = clean([{ name: 'markdown', options: { drop_boilerplate: false } }]);
    for (const text of ['[About us](https://widgets.example/about/)', 'GadgetMart', 'All rights reserved'])
      assert.ok(whole.includes(text), text);
  });

  test('remove_selectors, keep_selectors, include_links and include_images are honoured', () => {
    const out = clean([
      {
        name: 'markdown',
        options: {
          remove_selectors: ['header', 'footer', 'aside', '.ad', 'nav'],
          keep_selectors: ['nav.pagination a.next'],
          include_links: false,
          include_images: false,
        },
      },
    ]);
    assert.ok(
      out.startsWith('# Blue Widget review: small, quiet and worth it\n\nBy Ana Lima · 12 March 2026'),
    );
    for (const gone of [
      'About us',
      'GadgetMart',
      'Sponsored',
      'Related reviews',
      'All rights reserved',
      '](',
      '![',
    ])
      assert.ok(!out.includes(gone), gone);
    assert.ok(out.endsWith('-   No waterproofing\n\nNext page'), out);
    assert.ok(out.includes(SPECS_TABLE));
  });
});

describe('readability cleaner', () => {
  test('[readability, markdown] is the article alone, title first, table intact', () => {
    const out = clean([{ name: 'readability' }, { name: 'markdown' }]);
    assert.ok(
      out.startsWith('# Blue Widget review: small, quiet and worth it\n\nBy Ana Lima · 12 March 2026'),
    );
    assert.ok(out.includes(SPECS_TABLE));
    for (const gone of ['About us', 'GadgetMart', 'Related reviews', 'summer sale', 'All rights reserved'])
      assert.ok(!out.includes(gone), gone);
    assert.ok(out.length < clean([{ name: 'markdown', options: { drop_boilerplate: false } }]).length * 0.75);
  });

  test('remove_selectors applies before Readability; keep_selectors brings back what it dropped', () => {
    const out = clean([
      { name: 'readability', options: { remove_selectors: ['.ad'], keep_selectors: ['a.next'] } },
      { name: 'markdown' },
    ]);
    assert.ok(!out.includes('Sponsored'));
    assert.ok(out.endsWith('[Next page](https://widgets.example/reviews/page-2.html)'), out);
  });

  test('a page with little main content passes through whole, minus noise and page chrome', () => {
    const page =
      '<title>T</title><nav>Menu</nav><h1>Widget</h1><p>Price: $19.99</p><script>x()</script>' +
      '<div class="newsletter">Sign up</div><footer>Contact us</footer>';
    assert.equal(runChain(page, [{ name: 'readability' }]), '<h1>Widget</h1><p>Price: $19.99</p>');
  });
});

describe('text cleaner', () => {
  const text = clean([{ name: 'text' }]);

  test('plain text: no tags, no Markdown, no URLs by default; the head does not leak', () => {
    for (const markup of ['<', '](', '**', '| ---', 'https://']) assert.ok(!text.includes(markup), markup);
    for (const leak of HEAD_TEXT) assert.ok(!text.includes(leak), leak);
    assert.ok(text.includes('Blue Widget review: small, quiet and worth it\n\nBy Ana Lima · 12 March 2026'));
  });

  test('table rows stay rows', () => {
    assert.match(text, /^Blue Widget Pro +135 g +7 days +\$29\.99$/m);
  });

  test('include_links and include_images print targets and sources', () => {
    const out = clean([{ name: 'text', options: { include_links: true, include_images: true } }]);
    assert.ok(out.includes('setup guide [https://widgets.example/guides/widget-setup]'));
    assert.ok(out.includes('The Blue Widget on a desk [https://widgets.example/reviews/blue-widget.jpg]'));
  });
});

describe('html cleaner', () => {
  const html = clean([{ name: 'html' }]);

  test('sanitised: no scripts, styles, iframes, forms, classes, ids or head', () => {
    for (const bad of [
      '<script',
      '<style',
      '<iframe',
      '<form',
      '<input',
      ' class=',
      ' id=',
      '<title',
      'dataLayer',
    ])
      assert.ok(!html.includes(bad), bad);
  });

  test('whitespace is collapsed; wrappers left empty go', () => {
    assert.ok(!/\n/.test(html));
    assert.ok(!html.includes('<div> </div>') && !html.includes('<p></p>'));
  });

  test('keeps structure, the table with its span, links and images', () => {
    assert.ok(html.includes('<td colspan="3">Both models ship with a USB-C cable</td>'));
    assert.ok(html.includes('<a href="https://widgets.example/guides/widget-setup">setup guide</a>'));
    assert.ok(
      html.includes(
        '<img src="https://widgets.example/reviews/blue-widget.jpg" alt="The Blue Widget on a desk" />',
      ),
    );
  });

  test('include_links: false and include_images: false', () => {
    const out = clean([{ name: 'html', options: { include_links: false, include_images: false } }]);
    assert.ok(!out.includes('<a ') && !out.includes('<img'));
    assert.ok(out.includes('follow the setup guide.'));
  });
});

describe('noop cleaner', () => {
  test('returns its input unchanged and takes no options', () => {
    assert.equal(clean([{ name: 'noop' }]), PAGE);
    assert.throws(
      () => runChain('x', [{ name: 'noop', options: { include_links: true } }]),
      invalidAt('cleaner_chain.0.options.include_links'),
    );
  });
});

describe('runChain', () => {
  test('every catalogued cleaner is implemented', () => {
    assert.deepEqual(Object.keys(CLEANERS).sort(), [...CLEANER_NAMES].sort());
  });

  test('steps run in order, each on the output of the one before', () => {
    assert.equal(runChain('<h2>Hi</h2>', [{ name: 'html' }, { name: 'markdown' }]), '## Hi');
    assert.equal(runChain('<h2>Hi</h2>', [{ name: 'markdown' }, { name: 'html' }]), '## Hi');
    assert.equal(runChain('<h2>Hi</h2>', [{ name: 'text' }, { name: 'markdown' }]), 'Hi');
  });

  test('without a base URL relative URLs stay relative', () => {
    assert.equal(runChain('<a href="/x">x</a>', [{ name: 'markdown' }]), '[x](/x)');
  });

  test('a bad option is invalid input naming its place in the chain', () => {
    assert.throws(
      () =>
        runChain('<p>x</p>', [
          { name: 'noop' },
          { name: 'markdown', options: { remove_selectors: ['nav', 'div['] } },
        ]),
      invalidAt('cleaner_chain.1.options.remove_selectors.1'),
    );
    assert.throws(
      () => runChain('<p>x</p>', [{ name: 'text', options: { include_links: 'yes' } }]),
      invalidAt('cleaner_chain.0.options.include_links'),
    );
  });

  test('an unknown cleaner is invalid input naming its place', () => {
    assert.throws(
      () => runChain('x', [{ name: 'markdown' }, { name: 'sparkle' }]),
      invalidAt('cleaner_chain.1.name'),
    );
  });
});
