// Main-content extraction on a real-shaped page: an article between navigation, ads, a sidebar and a footer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { prepareDocument } from '../../../activities/reading/cleaners/document.js';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import {
  MIN_ARTICLE_CHARS,
  mainContent,
  PAGE_HEADER,
} from '../../../activities/reading/cleaners/readability.js';

const ARTICLE = readFileSync(new URL('../../fixtures/pages/article.html', import.meta.url), 'utf8');
const NO_SELECTORS = { remove_selectors: [], keep_selectors: [] };

const prepared = (html: string, keep: string[] = []) =>
  prepareDocument(
    html,
    { remove_selectors: [], keep_selectors: keep },
    { baseUrl: 'https://widgets.example/' },
  );

describe('mainContent', () => {
  test('keeps the article: paragraphs, table, list, links and images', () => {
    const $ = load(mainContent(prepared(ARTICLE), [])!);
    const text = $.root().text();
    for (const kept of [
      'smallest widget on the market',
      'Specifications',
      'Blue Widget Pro',
      'No waterproofing',
    ])
      assert.ok(text.includes(kept), kept);
    assert.equal($('table tr').length, 4);
    assert.equal($('a[href="https://widgets.example/guides/widget-setup"]').text(), 'setup guide');
    assert.equal($('img').attr('src'), 'https://widgets.example/reviews/blue-widget.jpg');
  });

  test('drops navigation, the leaderboard ad, the sidebar and the footer', () => {
    const text = load(mainContent(prepared(ARTICLE), [])!)
      .root()
      .text();
    for (const gone of [
      'About us',
      'GadgetMart',
      'Related reviews',
      'summer sale',
      'All rights reserved',
      'Subscribe',
    ])
      assert.ok(!text.includes(gone), gone);
  });

  test('one <article>: first a <header> with the title as a heading and the byline Readability took out', () => {
    const $ = load(mainContent(prepared(ARTICLE), [])!);
    assert.equal($('body > *').length, 1);
    const header = $(PAGE_HEADER);
    assert.deepEqual(
      header
        .children()
        .map((_, element) => $(element).prop('tagName'))
        .get(),
      ['H1', 'P'],
    );
    assert.equal(header.children('h1').text(), 'Blue Widget review: small, quiet and worth it');
    assert.equal(header.children('p').text(), 'By Ana Lima · 12 March 2026');
    assert.equal($('body > article > header').length, 1);
    assert.equal($('#readability-page-1').length, 0);
  });

  test("the title and byline are not repeated when the article's text holds them", () => {
    const prose = `<p>${'A paragraph long enough to be the article. '.repeat(6)}</p>`;
    const body = `${prose}<p>By Ana Lima</p>${prose}`;
    const page = `<html><head><title>Words</title></head><body><article><h1>Words</h1>${body}</article></body></html>`;
    const $ = load(mainContent(prepared(page), [])!);
    // The heading before the first sentence moves to the header: there once, as the only line.
    assert.equal($(PAGE_HEADER).children().length, 1);
    assert.equal($(PAGE_HEADER).text(), 'Words');
    assert.equal($.root().text().split('Words').length, 2);
    assert.equal($.root().text().split('By Ana Lima').length, 2);
  });

  test('a following cleaner takes it for content: lists of short links inside stay', () => {
    const links = Array.from({ length: 6 }, (_, i) => `<li><a href="/w/${i}">Word ${i}</a></li>`).join('');
    const page = `<nav>${links}</nav><article><h1>Words</h1><p>${'A paragraph long enough to be the article. '.repeat(12)}</p><ul>${links}</ul><p>${'And it goes on after the list. '.repeat(6)}</p></article>`;
    const text = runChain(page, [{ name: 'readability' }, { name: 'text' }]);
    assert.ok(text.includes('Word 5'), text);
  });

  test('a pick holding little of the prose gets a second look: a letter, not the list of its signers', () => {
    const signers = Array.from({ length: 150 }, (_, i) => `<p>Jane Doe ${i}, Some University</p>`).join('');
    const letter = Array.from(
      { length: 6 },
      (_, i) =>
        `<p>Paragraph ${i} of the letter argues its case at length and in full sentences. It holds few commas ` +
        'and no names, and it reads as the text a person came for. It ends the way prose ends.</p>',
    ).join('');
    const page = `<html><body><div>${letter}</div><div>${signers}</div></body></html>`;
    const text = load(mainContent(prepared(page), [])!)
      .root()
      .text();
    assert.ok(text.includes('Paragraph 2 of the letter'), text.slice(0, 200));
    assert.ok(!text.includes('Jane Doe 30'));
  });

  test('a second pick that the trim steps empty (a wrapper of teaser links) leaves the first pick standing', () => {
    const story = Array.from(
      { length: 3 },
      (_, i) =>
        `<p>Paragraph ${i} of the story tells what happened, in full sentences with a comma, here and there. ` +
        'Shoppers were charged for paper bags, and some of them said so in public.</p>',
    ).join('');
    const teasers = Array.from(
      { length: 80 },
      (_, i) =>
        `<li><a href="/n/${i}">Teaser ${i} is a whole sentence about another story that the site would like you to read next.</a></li>`,
    ).join('');
    const page = `<html><body><div class="story">${story}</div><div class="more"><ul>${teasers}</ul></div></body></html>`;
    const text = load(mainContent(prepared(page), [])!)
      .root()
      .text();
    assert.ok(text.includes('Paragraph 1 of the story'), text.slice(0, 200));
    assert.ok(!text.includes('Teaser 30'));
  });

  test('a pick that the trim steps empty (a post that is a list of links) is no main content: the page is taken whole', () => {
    const links = Array.from(
      { length: 8 },
      (_, i) =>
        `<li><p class="link"><a href="https://news.example.org/${i}">Headline number ${i} of the links the blogger read today</a></p>` +
        '<p class="via">via <a href="https://news.example.org">https://news.example.org</a></p></li>',
    ).join('');
    const page =
      '<html><head><title>Links of the day – A blog</title></head><body><main><article><h1>Links of the day</h1>' +
      `<div class="entry-content"><ul class="linkroll">${links}</ul></div></article></main></body></html>`;
    assert.equal(mainContent(prepared(page), []), null);
    const text = runChain(page, [{ name: 'readability' }, { name: 'text' }]);
    assert.ok(text.includes('Headline number 7 of the links'), text);
  });

  test('a section inside an anchor the page left open (<a name> without href) is text, not a block of links', () => {
    const sentence = (topic: string) =>
      `I set up ${topic} on the server and it took an afternoon, with some reading of its manual pages first. `;
    const section = (name: string, topic: string) =>
      `<h2><a name="${name}">${name}</h2><blockquote><p>${sentence(topic).repeat(3)}</p><p>${sentence(topic).repeat(2)}</p></blockquote>`;
    // The parser carries each open anchor on around the next section, so every section sits inside an <a>.
    const page =
      '<html><body><h1>Rsync over a tunnel</h1>' +
      `<h2><a name="purpose">Purpose</h2><blockquote><p>Why I wrote this: ${sentence('the tunnel')}</p></blockquote>` +
      `${section('building', 'OpenSSL')}${section('config', 'Stunnel')}${section('testing', 'Rsync')}</body></html>`;
    const text = runChain(page, [{ name: 'readability' }, { name: 'text' }]);
    for (const topic of ['Why I wrote this', 'OpenSSL', 'Stunnel', 'Rsync'])
      assert.ok(text.includes(topic), topic);
  });

  test('kept elements Readability left out are appended, without marks', () => {
    const html = mainContent(prepared(ARTICLE, ['.pagination .next']), ['.pagination .next'])!;
    const $ = load(html);
    assert.equal($('a.next').attr('href'), 'https://widgets.example/reviews/page-2.html');
    assert.equal($('a.next').length, 1);
    assert.ok(!html.includes('data-cleaner-keep'));
  });

  test('kept elements already in the article are not repeated', () => {
    const html = mainContent(prepared(ARTICLE, ['.review table']), ['.review table'])!;
    assert.equal(load(html)('table').length, 1);
  });

  test(`less than ${MIN_ARTICLE_CHARS} characters of article is no main content`, () => {
    const short =
      '<nav><a href="/">Home</a></nav><main><h1>Widget</h1><p>Price: $19.99</p></main><footer>x</footer>';
    assert.equal(mainContent(prepareDocument(short, NO_SELECTORS, {}), []), null);
    assert.equal(mainContent(prepareDocument('', NO_SELECTORS, {}), []), null);
  });

  test('a document without main content is left without marks, for the caller to take whole', () => {
    const $ = prepareDocument('<p><a class="next" href="/2">next</a></p>', NO_SELECTORS, {});
    assert.equal(mainContent($, ['a.next']), null);
    assert.equal($('body').html(), '<p><a class="next" href="/2">next</a></p>');
  });
});
