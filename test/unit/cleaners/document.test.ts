// The document steps every HTML cleaner shares: noise, remove/keep selectors, links and images, URLs, spans.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import {
  bodyHtml,
  collapseWhitespace,
  dropLinksAndImages,
  NOISE_SELECTOR,
  prepareDocument,
  removeElements,
} from '../../../activities/reading/cleaners/document.js';
import { expandColspans } from '../../../activities/reading/cleaners/tables.js';
import { absolutizeUrls, dropUnusableUrls } from '../../../activities/reading/cleaners/urls.js';

const NO_SELECTORS = { remove_selectors: [], keep_selectors: [] };

describe('prepareDocument', () => {
  test('a fragment gets a body; the head and its title go', () => {
    const $ = prepareDocument('<title>Tab title</title><p>Body text</p>', NO_SELECTORS, {});
    assert.equal(bodyHtml($), '<p>Body text</p>');
  });

  test('drops every kind of page noise with its text', () => {
    const html =
      '<head><meta charset="utf-8"><style>p{}</style><script>head()</script></head><body><p>keep</p>' +
      '<script>x()</script><noscript>enable js</noscript><template><p>t</p></template>' +
      '<iframe src="a"></iframe><svg><text>s</text></svg><canvas>c</canvas><object>o</object></body>';
    assert.equal(bodyHtml(prepareDocument(html, NO_SELECTORS, {})), '<p>keep</p>');
  });

  test('removes remove_selectors, leaves the rest in order', () => {
    const $ = prepareDocument(
      '<nav><a href="/">Home</a></nav><p>one</p><div class="ad">buy</div><p>two</p>',
      { remove_selectors: ['nav', '.ad'], keep_selectors: [] },
      {},
    );
    assert.equal(bodyHtml($), '<p>one</p><p>two</p>');
  });

  test('a kept element inside a removed one stays where the removed one was', () => {
    const $ = prepareDocument(
      '<p>a</p><nav><a href="/1">1</a><a class="next" href="/2">next</a></nav><p>b</p>',
      { remove_selectors: ['nav'], keep_selectors: ['a.next'] },
      {},
    );
    assert.equal(bodyHtml($), '<p>a</p><a class="next" href="/2">next</a><p>b</p>');
  });

  test('whatever lies inside a kept element is spared by remove_selectors', () => {
    const $ = prepareDocument(
      '<div class="product"><span class="price">$5</span></div><span class="price">$9</span>',
      { remove_selectors: ['.price'], keep_selectors: ['.product'] },
      {},
    );
    assert.equal(bodyHtml($), '<div class="product"><span class="price">$5</span></div>');
  });

  test('a kept noise element survives, even out of <head>; noise inside kept elements does not', () => {
    const html =
      '<head><script type="application/ld+json">{"sku":"BW-1"}</script><title>T</title></head>' +
      '<body><div class="keep"><script>track()</script><p>x</p></div></body>';
    const $ = prepareDocument(
      html,
      { remove_selectors: [], keep_selectors: ['script[type="application/ld+json"]', '.keep'] },
      {},
    );
    assert.equal(
      bodyHtml($),
      '<script type="application/ld+json">{"sku":"BW-1"}</script><div class="keep"><p>x</p></div>',
    );
  });

  test('include_links: false keeps link text; include_images: false drops images', () => {
    const $ = prepareDocument(
      '<p><a href="/a">Alpha</a> <img src="/i.png" alt="pic"></p>',
      { ...NO_SELECTORS, include_links: false, include_images: false },
      {},
    );
    assert.equal(bodyHtml($), '<p>Alpha </p>');
  });

  test('resolves URLs against the page before the <base> goes with the head', () => {
    const $ = prepareDocument(
      '<head><base href="/docs/"></head><body><a href="intro">Intro</a></body>',
      NO_SELECTORS,
      { baseUrl: 'https://site.example/index.html' },
    );
    assert.equal(bodyHtml($), '<a href="https://site.example/docs/intro">Intro</a>');
  });
});

describe('removeElements', () => {
  test('nested matches are removed once, without error', () => {
    const $ = load('<div class="x"><div class="x"><p>in</p></div></div><p>out</p>');
    removeElements($, '.x', '', true);
    assert.equal(bodyHtml($), '<p>out</p>');
  });

  test('only the outermost kept descendants are hoisted', () => {
    const $ = load('<aside><div class="k"><p class="k">deep</p></div></aside>');
    removeElements($, 'aside', '.k', true);
    assert.equal(bodyHtml($), '<div class="k"><p class="k">deep</p></div>');
  });

  test('the noise selector names the head, so the title goes', () => {
    assert.match(NOISE_SELECTOR, /\bhead\b/);
    const $ = load('<html><head><title>Shop</title></head><body>b</body></html>');
    removeElements($, NOISE_SELECTOR, '', false);
    assert.equal($.root().text(), 'b');
  });
});

describe('dropLinksAndImages', () => {
  test('unwraps nested markup inside links, drops <picture> with its sources', () => {
    const $ = load(
      '<a href="/x"><b>bold</b> text</a><picture><source srcset="a.webp"><img src="a.png"></picture>',
    );
    dropLinksAndImages($, { links: true, images: true });
    assert.equal(bodyHtml($), '<b>bold</b> text');
  });

  test('does nothing when both are kept', () => {
    const $ = load('<a href="/x">x</a><img src="y.png">');
    dropLinksAndImages($, { links: false, images: false });
    assert.equal(bodyHtml($), '<a href="/x">x</a><img src="y.png">');
  });
});

describe('collapseWhitespace', () => {
  test('runs of whitespace become one space, except in <pre> and <textarea>', () => {
    const $ = load(
      '<div>\n  <p>a \n\t b</p>\n</div><pre>  x\n    <b>y  z</b>\n</pre><textarea>1\n\n2</textarea>',
    );
    collapseWhitespace($);
    assert.equal(
      bodyHtml($),
      '<div> <p>a b</p> </div><pre>  x\n    <b>y  z</b>\n</pre><textarea>1\n\n2</textarea>',
    );
  });
});

describe('absolutizeUrls', () => {
  test('links, areas and images become absolute; absolute and mailto stay', () => {
    const $ = load(
      '<a href="../up">u</a><a href="https://other.example/">o</a><a href="mailto:a@b.example">m</a>' +
        '<area href="/map"><img src="pic.png">',
    );
    absolutizeUrls($, 'https://site.example/a/b/page');
    assert.deepEqual(
      $('a, area, img')
        .map((_, el) => $(el).attr('href') ?? $(el).attr('src'))
        .get(),
      [
        'https://site.example/a/up',
        'https://other.example/',
        'mailto:a@b.example',
        'https://site.example/map',
        'https://site.example/a/b/pic.png',
      ],
    );
  });

  test('lazy images: data-src wins over a missing or data: src', () => {
    const $ = load(
      '<img data-src="/real.jpg"><img src="data:image/gif;base64,R0lGOD" data-src="/lazy.jpg">' +
        '<img src="/own.jpg" data-src="/other.jpg">',
    );
    absolutizeUrls($, 'https://site.example/');
    assert.deepEqual(
      $('img')
        .map((_, el) => $(el).attr('src'))
        .get(),
      ['https://site.example/real.jpg', 'https://site.example/lazy.jpg', 'https://site.example/own.jpg'],
    );
  });

  test('a malformed href is left as it is', () => {
    const $ = load('<a href="http://[bad">x</a>');
    absolutizeUrls($, 'https://site.example/');
    assert.equal($('a').attr('href'), 'http://[bad');
  });
});

describe('dropUnusableUrls', () => {
  test('javascript: links lose their href, data: images their src', () => {
    const $ = load('<a href="javascript:void(0)">menu</a><img src="data:image/png;base64,AAAA" alt="dot">');
    dropUnusableUrls($);
    assert.equal(bodyHtml($), '<a>menu</a><img alt="dot">');
  });
});

describe('expandColspans', () => {
  test('a cell spanning n columns becomes n cells', () => {
    const $ = load(
      '<table><tr><th colspan="3">All</th></tr><tr><td>1</td><td colspan="2">2</td></tr></table>',
    );
    expandColspans($);
    assert.equal(
      $('table').html(),
      '<tbody><tr><th>All</th><th></th><th></th></tr><tr><td>1</td><td>2</td><td></td></tr></tbody>',
    );
  });

  test('absurd spans are capped, junk spans count as one', () => {
    const $ = load('<table><tr><td colspan="100000">x</td><td colspan="abc">y</td></tr></table>');
    expandColspans($);
    assert.equal($('td').length, 51);
  });
});
