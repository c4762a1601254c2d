// What the readability cleaner trims from Readability's article: captions, blocks of links and the trail of
// short lines after the last paragraph; never listing items, tables, lists or kept elements.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import type { Element } from 'domhandler';
import {
  dropLinkBlocks,
  dropRepeatedLines,
  takeHeadLines,
  trimTail,
} from '../../../activities/reading/cleaners/article-trim.js';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { PAGE_HEADER } from '../../../activities/reading/cleaners/readability.js';

const PROSE = 'A sentence of the article that goes on for a while and ends properly. ';
const notKept = () => false;

function trimmed(html: string, isKept: (element: Element) => boolean = notKept) {
  const $ = load(`<article>${html}</article>`);
  const root = $('article').get(0)!;
  dropLinkBlocks($, root, isKept);
  trimTail($, root, isKept);
  return $;
}

describe('dropLinkBlocks', () => {
  test('drops captions and blocks of links; keeps paragraphs with a link in them and lists', () => {
    const $ = trimmed(
      `<p>${PROSE}<a href="/a">one link</a> in it.</p>` +
        '<figure><img src="/p.jpg"><figcaption>Photo: Agency</figcaption></figure>' +
        '<div><a href="/1">Another story</a> · <a href="/2">A third story</a></div>' +
        '<ul><li><a href="/w/1">Word one</a></li><li><a href="/w/2">Word two</a></li></ul>' +
        `<p>${PROSE}</p>`,
    );
    assert.equal($('figcaption').length, 0);
    assert.equal($('img').length, 1);
    assert.ok(!$('article').text().includes('Another story'));
    assert.equal($('ul a').length, 2);
    assert.equal($('p').length, 2);
  });

  test('keeps a list whose items are more than their links, and kept elements', () => {
    const $ = trimmed(
      '<ul><li><a href="/1">Kettle</a> steel, 1.7 litres, boils in three minutes</li>' +
        '<li><a href="/2">Toaster</a> two slots, six settings and a crumb tray</li></ul>' +
        '<div class="pager"><a href="/p2">2</a> <a href="/p3">3</a></div>' +
        `<p>${PROSE}</p>`,
      (element) => element.attribs.class === 'pager',
    );
    assert.equal($('li').length, 2);
    assert.equal($('.pager a').length, 2);
  });
});

describe('dropLinkBlocks and references', () => {
  test('keeps the list of references a post cites ([1] address, [2] address); a block of links still goes', () => {
    const $ = load(
      `<article><p>${PROSE}The foundation says so [1], and so does the agency [2].</p>` +
        '<p>[1] <a href="https://a.example/free">https://a.example/free</a><br>' +
        '[2] <a href="https://b.example/portal">https://b.example/portal</a></p>' +
        '<p><a href="/1">Another story</a> · <a href="/2">A third story</a></p>' +
        `<p>${PROSE}</p></article>`,
    );
    dropLinkBlocks($, $('article').get(0)!, notKept);
    const text = $('article').text();
    assert.ok(text.includes('https://b.example/portal'), text);
    assert.ok(!text.includes('Another story'), text);
  });
});

describe('dropLinkBlocks on a roundup', () => {
  const linkBlocksDropped = (html: string) => {
    const $ = load(`<article>${html}</article>`);
    dropLinkBlocks($, $('article').get(0)!, () => false);
    return $;
  };

  test('a body whose every line names a linked product is looked into, not dropped whole', () => {
    const deal = (i: number) =>
      `<p>The <a href="/p/${i}">Acme Deluxe Robot Vacuum Cleaner model ${i} with its charging dock, spare brushes and a remote</a> is half price.</p>`;
    const related =
      '<div><a href="/n/1">Council approves the budget</a> <a href="/n/2">Storm closes the coast road</a></div>';
    const $ = linkBlocksDropped(
      `<div class="story-body">${Array.from({ length: 8 }, (_, i) => deal(i)).join('')}${related}</div>`,
    );
    const text = $('article').text();
    assert.ok(text.includes('Robot Vacuum Cleaner model 3') && text.includes('is half price'), text);
    // Its own blocks of links still go.
    assert.ok(!text.includes('Council approves'));
    // A wrapper of link lists without prose is still a block of links.
    const lists = linkBlocksDropped(
      `<p>${PROSE}</p><div>${Array.from({ length: 8 }, (_, i) => `<p><a href="/a/${i}">A story about the council and its budget, number ${i}</a></p>`).join('')}</div>`,
    );
    assert.ok(!lists('article').text().includes('number 3'));
  });
});

describe('trimTail', () => {
  test('drops short unpunctuated lines and links after the last paragraph', () => {
    const $ = trimmed(
      `<p>${PROSE}</p><p>${PROSE}</p><h2>Related</h2><p><a href="/x">Read this next</a></p><div><p>Follow us</p><p>Share</p></div>`,
    );
    assert.deepEqual(
      $('article')
        .children()
        .map((_, element) => $(element).prop('tagName'))
        .get(),
      ['P', 'P'],
    );
  });

  test('keeps a short closing sentence, a closing table and a closing list', () => {
    const $ = trimmed(
      `<p>${PROSE}</p><table><tr><td>Size</td><td>12 cm</td></tr></table><ul><li>Blue</li><li>Red</li></ul><p>Prices may vary.</p>`,
    );
    assert.equal($('table').length, 1);
    assert.equal($('li').length, 2);
    assert.ok($('article').text().includes('Prices may vary.'));
  });

  test("keeps a listing's last item: cards after cards like it are never trimmed", () => {
    const card = (name: string) => `<div><h3>${name}</h3><p>$19.00</p><p>126 reviews</p></div>`;
    const $ = trimmed(`<div>${card('Lamp')}${card('Kettle')}${card('Shelf')}</div>`);
    assert.ok($('article').text().includes('Shelf'));
    assert.ok($('article').text().includes('126 reviews'));
  });

  test('stops at an image', () => {
    const $ = trimmed(`<p>${PROSE}</p><p><img src="/chart.png"></p>`);
    assert.equal($('img').length, 1);
  });

  test('drops a copyright line and spacer images, and trims on past them', () => {
    const $ = trimmed(
      `<p>${PROSE}</p><p>The Wire<br>© 2013 Some News Network, Inc., a Media Company. All rights reserved.</p>` +
        '<div><p><img src="/dot.gif" width="42" height="5"></p><p>Share</p></div>',
    );
    assert.equal($('article').text(), PROSE);
  });

  test('drops a small box after the body: a prompt to the reader, even in sentences', () => {
    const body = `<div><p>${PROSE.repeat(3)}</p><p>${PROSE.repeat(3)}</p><p>${PROSE.repeat(2)}</p></div>`;
    const prompt =
      '<div><p><strong>Found a mistake?</strong></p><p>Select the text and press Ctrl+Enter to send it to the editors!</p></div>';
    const $ = trimmed(`<p>${PROSE}</p>${body}${prompt}`);
    assert.ok(!$('article').text().includes('mistake'));
    assert.equal($('article p').length, 4);
  });

  test("keeps the body's last paragraphs in boxes like the ones before, and a closing box with a list", () => {
    const box = (text: string) => `<div><p>${text}</p></div>`;
    const $ = trimmed(
      `${box(PROSE.repeat(3))}${box(PROSE.repeat(3))}${box('The last paragraph, in its own box.')}`,
    );
    assert.ok($('article').text().includes('The last paragraph'));
    const list = trimmed(
      `<div><p>${PROSE.repeat(6)}</p></div><div><p>Key facts:</p><ul><li>Born 1950.</li><li>Died 2020.</li></ul></div>`,
    );
    assert.equal(list('li').length, 2);
  });
});

describe('dropRepeatedLines', () => {
  test("drops a line said three times in a row (a gallery's slide titles), all of them", () => {
    const $ = load(
      `<article><div><p>${PROSE}</p>${'<p>Storm photos</p>'.repeat(14)}<p>Twice</p><p>Twice</p></div><p>${PROSE}</p></article>`,
    );
    dropRepeatedLines($, $('article').get(0)!, notKept);
    assert.ok(!$('article').text().includes('Storm photos'));
    assert.equal($('p').length, 4);
  });

  test('keeps lines that repeat from card to card of a listing, and sentences said again', () => {
    const card = (name: string) => `<div><h3>${name}</h3><p>In stock</p><p>Add to basket</p></div>`;
    const html = `<article>${card('Lamp')}${card('Kettle')}${card('Shelf')}${`<p>${PROSE}</p>`.repeat(3)}</article>`;
    const $ = load(html);
    dropRepeatedLines($, $('article').get(0)!, notKept);
    assert.equal($('p').length, 9);
  });
});

describe('takeHeadLines', () => {
  test('drops a breadcrumb trail before the article and takes the dateline after it, numbers and all', () => {
    const $ = load(
      '<article><nav><a href="/">Home</a> › <a href="/news">News</a> › <span>Storm over the city</span></nav>' +
        `<div><p>Wednesday 28 August 2013, last updated 14:00 (GMT+0400)</p></div><div><p>${PROSE}</p><p>${PROSE}</p></div></article>`,
    );
    const lines = takeHeadLines($, $('article').get(0)!, notKept);
    assert.deepEqual(
      lines.map((line) => $(line).text()),
      ['Wednesday 28 August 2013, last updated 14:00 (GMT+0400)'],
    );
    assert.equal($('nav').length, 0);
    assert.ok($('article').text().startsWith(PROSE.trim()));
  });

  test('takes the short lines before the first sentence, and stops there', () => {
    const $ = load(
      `<article><div><p>Updated 14:00 GMT</p><p>Politics</p></div><p>${PROSE}</p><p>Short line</p></article>`,
    );
    const lines = takeHeadLines($, $('article').get(0)!, notKept);
    assert.deepEqual(
      lines.map((line) => $(line).text()),
      ['Updated 14:00 GMT', 'Politics'],
    );
    assert.ok($('article').text().startsWith(PROSE.trim()));
    assert.ok($('article').text().includes('Short line'));
  });

  test("takes a dateline with its section's links, less link than text", () => {
    const $ = load(
      `<article><p>18 June 2018 10:01, Kano [ <a href="/ng">Nigeria</a> <a href="/af">Africa</a> ]</p><p>${PROSE}</p></article>`,
    );
    const lines = takeHeadLines($, $('article').get(0)!, notKept);
    assert.deepEqual(
      lines.map((line) => $(line).text()),
      ['18 June 2018 10:01, Kano [ Nigeria Africa ]'],
    );
  });

  test('leaves a heading first when the body has more headings of its level: it heads the first section', () => {
    const html = `<article><h2>Career so far</h2><p>${PROSE}</p><h2>Shows and prizes</h2><p>${PROSE}</p></article>`;
    const $ = load(html);
    assert.deepEqual(takeHeadLines($, $('article').get(0)!, notKept), []);
    assert.ok($('article').text().startsWith('Career so far'));
    // A heading alone at its level before the first sentence is a kicker: it goes to the header.
    const $kicker = load(
      `<article><h3>Politics</h3><p>${PROSE}</p><h2>Reactions</h2><p>${PROSE}</p></article>`,
    );
    const lines = takeHeadLines($kicker, $kicker('article').get(0)!, notKept);
    assert.deepEqual(
      lines.map((line) => $kicker(line).text()),
      ['Politics'],
    );
  });

  test("leaves a listing's first item, a list, links and images", () => {
    const card = (name: string) => `<div><h3>${name}</h3><p>$19.00</p></div>`;
    for (const html of [
      `<div>${card('Lamp')}${card('Kettle')}${card('Shelf')}</div>`,
      '<ul><li>Blue</li></ul>',
      '<p><a href="/">Home</a></p>',
      '<p><img src="/a.png"></p>',
    ]) {
      const $ = load(`<article>${html}<p>${PROSE}</p></article>`);
      assert.deepEqual(takeHeadLines($, $('article').get(0)!, notKept), [], html);
    }
  });
});

describe('the readability cleaner trims its article', () => {
  test('a dateline before the first sentence goes to the header; the body starts with the sentence', () => {
    const page = `<html><body><article><p>Monday 3 March 2026, 14:00</p><p>${PROSE.repeat(6)}</p></article></body></html>`;
    const $ = load(runChain(page, [{ name: 'readability' }]));
    assert.equal($(PAGE_HEADER).children().last().text(), 'Monday 3 March 2026, 14:00');
    $(PAGE_HEADER).remove();
    assert.ok($('article').text().startsWith(PROSE.trim()));
  });

  test('related links, captions and a "follow us" line go; the body stays', () => {
    const body = `<p>${PROSE.repeat(4)}</p><figure><img src="/a.jpg"><figcaption>Credit: Someone</figcaption></figure><p>${PROSE.repeat(3)}</p>`;
    const related =
      '<h3>Related</h3><ul><li><a href="/r1">Another story here</a></li><li><a href="/r2">And one more story</a></li></ul><p>Follow us on social media</p>';
    const page = `<html><body><nav><a href="/">Home</a></nav><article>${body}${related}</article></body></html>`;
    const text = runChain(page, [{ name: 'readability' }, { name: 'text' }]);
    assert.ok(text.includes('ends properly'), text);
    for (const gone of ['Credit: Someone', 'Another story here', 'Follow us', 'Related'])
      assert.ok(!text.includes(gone), `${gone} in ${text}`);
  });

  test('a page of 20,000 nested elements is trimmed without recursion', () => {
    const depth = 20_000;
    const $ = load(`<article>${'<div>'.repeat(depth)}<p>${PROSE}</p>${'</div>'.repeat(depth)}</article>`);
    const started = performance.now();
    dropLinkBlocks($, $('article').get(0)!, notKept);
    assert.ok(performance.now() - started < 5_000);
    assert.ok($('p').text().includes('ends properly'));
  });
});
