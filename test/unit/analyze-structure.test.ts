// The pure structure detectors of analyze: repeated blocks, pagination, counted elements, page type guesses
// and candidate fields, each on small hand-written pages whose contents are known.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import {
  fieldName,
  itemFields,
  singleItemFields,
} from '../../activities/reading/page-structure/candidate-fields.js';
import { countPage, describeElements } from '../../activities/reading/page-structure/elements.js';
import { analyzeStructure } from '../../activities/reading/page-structure/page-structure.js';
import { guessPageType, pageKind } from '../../activities/reading/page-structure/page-type.js';
import { findPagination } from '../../activities/reading/page-structure/pagination.js';
import {
  findRepeatedBlocks,
  mainBlock,
  signature,
} from '../../activities/reading/page-structure/repeated-blocks.js';

const URL_ = 'https://shop.example/kettles';
const card = (i: number) =>
  `<div class="card item"><a href="/p/${i}">Kettle ${i}</a><span class="price">€${i}9,00</span><img src="/i/${i}.png"></div>`;
const LISTING = `<html><head><title>Kettles</title></head><body>
  <header><nav><a href="/">Home</a><a href="/kettles">Kettles</a><a href="/about">About</a></nav></header>
  <main><h1>Kettles</h1><section class="grid">${[1, 2, 3, 4, 5, 6, 7].map(card).join('')}</section>
  <nav aria-label="Pagination"><a href="/kettles?page=1">1</a><a href="/kettles?page=2">2</a><a href="/kettles?page=3">3</a></nav>
  </main><footer><ul><li><a href="/terms">Terms</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/help">Help</a></li></ul></footer>
</body></html>`;

describe('repeated blocks', () => {
  test('sibling groups of at least three with links are found with a selector that counts them', () => {
    const $ = load(LISTING);
    const blocks = findRepeatedBlocks($);
    const main = mainBlock(blocks);
    assert.equal(main?.selector, 'section.grid > div.card.item');
    assert.equal(main?.count, 7);
    assert.equal(main?.withLinks, 7);
    assert.equal($(main?.selector ?? '').length, 7);
    // The footer list repeats too, but it is site chrome, ranked after content.
    const footer = blocks.find((b) => b.selector.includes('li'));
    assert.equal(footer?.inChrome, true);
    assert.ok(blocks.indexOf(footer!) > blocks.indexOf(main!));
  });

  test('parts repeated inside each item are not blocks of their own; paragraphs and cells are not items', () => {
    const rows = Array.from(
      { length: 4 },
      (_, i) =>
        `<li class="row"><div class="a"><b>x</b>${i}</div><div class="a"><b>y</b></div><div class="a"><b>z</b></div><a href="/r/${i}">r</a></li>`,
    );
    const $ = load(
      `<ul class="rows">${rows.join('')}</ul>${'<p>Some paragraph text that is long enough.</p>'.repeat(5)}`,
    );
    const blocks = findRepeatedBlocks($);
    assert.deepEqual(
      blocks.map((b) => b.selector),
      ['ul.rows > li.row'],
    );
  });

  test('signature: tag and up to three sorted CSS-safe classes', () => {
    const $ = load('<div class="z a md:w-1/2 b c"></div>');
    assert.equal(signature($('div')[0]!), 'div.a.b.c');
  });
});

describe('pagination', () => {
  test('links of a pagination container, rel=next and page-number links, once each, the page itself left out', () => {
    const $ = load(LISTING);
    const p = findPagination($, `${URL_}?page=1`);
    assert.deepEqual(p.urls.sort(), [`${URL_}?page=2`, `${URL_}?page=3`]);
    assert.match(p.selector, /aria-label/);
    const loose = load(
      '<a href="/x?page=2">2</a><a href="/x?page=3">3</a><a class="nxt" href="/x?page=2">Next ›</a><a href="/about">2</a>',
    );
    assert.deepEqual(findPagination(loose, 'https://s.example/x').urls.sort(), [
      'https://s.example/x?page=2',
      'https://s.example/x?page=3',
    ]);
  });
});

describe('counted elements', () => {
  test('headings, images, prices, tables, forms, dates, navigation and text blocks as defined', () => {
    const html = `<nav><a href="/a">A</a><a href="/b">B</a></nav><h1>T</h1><h2>S</h2><h4>not counted</h4>
      <img src="/x.png"><header><img src="/logo.png"></header>
      <p>Price: $5.00</p><span>24,50 €</span><span>EUR 1,299</span>
      <table><tr><td>a</td></tr><tr><td>b</td></tr></table><table><tr><td>layout</td></tr></table>
      <form><input name="q"><input type="hidden" name="t"><select name="s"></select></form>
      <time datetime="2024-01-02">2 January 2024</time><span>Updated 2024-02-03</span>
      <p>${'word '.repeat(30)}</p>`;
    const $ = load(html);
    const found = countPage($);
    assert.deepEqual(
      { ...found.counts },
      {
        h1: 1,
        headings: 2,
        images: 1,
        tables: 1,
        forms: 1,
        formFields: 2,
        prices: 3,
        dates: 2,
        navLinks: 2,
        paragraphs: 1,
        paragraphChars: 149,
        codeBlocks: 0,
        articles: 0,
      },
    );
    const elements = describeElements($, found);
    assert.deepEqual(
      elements.map((e) => [e.type, e.count]),
      [
        ['heading', 2],
        ['image', 1],
        ['table', 1],
        ['form', 1],
        ['price', 3],
        ['date', 2],
        ['navigation', 2],
        ['text_block', 1],
      ],
    );
  });
});

describe('page type and fields', () => {
  test('the structure of a listing, its patterns and its item fields', () => {
    const s = analyzeStructure(LISTING, URL_);
    assert.equal(s.guess.type, 'listing');
    assert.equal(s.items, 7);
    assert.deepEqual(
      s.fields.map((f) => [f.name, f.type]),
      [
        ['title', 'string'],
        ['url', 'string'],
        ['price', 'number'],
        ['image_url', 'string'],
      ],
    );
    assert.equal(s.patterns[0]?.pattern, '^https:\\/\\/shop\\.example\\/p\\/\\d+$');
    assert.equal(s.patterns[0]?.role, 'item');
  });

  test('guesses from evidence', () => {
    const counts = countPage(load('<h1>x</h1>')).counts;
    const base = { url: 'https://s.example/a', counts, items: 0, itemsWithLinks: 0, paginationLinks: 0 };
    assert.equal(guessPageType({ ...base, items: 6, itemsWithLinks: 6 }).type, 'listing');
    assert.equal(
      guessPageType({ ...base, url: 'https://s.example/find?q=x', items: 6, itemsWithLinks: 6 }).type,
      'search_results',
    );
    assert.equal(guessPageType({ ...base, counts: { ...counts, prices: 1 } }).type, 'product');
    assert.equal(
      guessPageType({ ...base, counts: { ...counts, articles: 1, paragraphChars: 3000 } }).type,
      'article',
    );
    assert.equal(
      guessPageType({ ...base, counts: { ...counts, codeBlocks: 3, headings: 4 } }).type,
      'documentation',
    );
    assert.equal(guessPageType({ ...base, counts: { ...counts, formFields: 5 } }).type, 'form');
    assert.equal(guessPageType({ ...base, counts: { ...counts, paragraphChars: 400 } }).type, 'detail');
    assert.equal(guessPageType({ ...base, counts: { ...counts, h1: 0 } }).type, 'other');
    assert.equal(pageKind('product'), 'detail');
    assert.equal(pageKind('search_results'), 'listing');
  });

  test('single-item fields: title, price, date, author, labelled values, text', () => {
    const $ =
      load(`<h1>Kettle</h1><span class="price">$9.99</span><time datetime="2024-01-01">1 Jan 2024</time>
      <span class="author">Ada</span><dl><dt>Release date:</dt><dd>2024</dd></dl>
      <table><tr><th>Weight</th><td>1 kg</td></tr></table><p>${'text '.repeat(20)}</p>`);
    assert.deepEqual(
      singleItemFields($).map((f) => f.name),
      ['title', 'price', 'published_at', 'author', 'release_date', 'weight', 'description'],
    );
    assert.deepEqual(
      itemFields(load(LISTING), 'section.grid > div.card.item').map((f) => f.name),
      ['title', 'url', 'price', 'image_url'],
    );
    assert.equal(fieldName('Släpp-Datum (UTC)'), 'slapp_datum_utc');
    assert.equal(fieldName('inStock'), 'in_stock');
    assert.equal(fieldName('123'), null);
  });
});
