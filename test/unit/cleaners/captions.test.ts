// What the readability cleaner leaves out around pictures (captions and credits by class, screen-reader
// labels, a video box's title and source) and what it keeps (the picture, a figure named after its caption,
// a listing's cards, kept elements, long text), the section headings Readability took for chrome, and the
// leading heading that says the page's title; hostile shapes stay linear.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import type { Element } from 'domhandler';
import { isSpacer } from '../../../activities/reading/cleaners/article-trim.js';
import { dropCaptions, dropPictureText } from '../../../activities/reading/cleaners/captions.js';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { PAGE_HEADER } from '../../../activities/reading/cleaners/readability.js';

const PROSE = 'A sentence of the article that goes on for a while and ends properly. ';
const notKept = () => false;

describe('dropCaptions', () => {
  test('drops captions, credits and screen-reader labels by class; keeps the figure and its picture', () => {
    const $ = load(
      '<div class="media-landscape has-caption"><img src="/a.jpg"><span class="off-screen">Image copyright</span>' +
        '<span class="story-image-copyright">Agency</span><p class="caption">The mayor at the opening.</p></div>' +
        `<p class="intro">${PROSE}</p><div class="wp-caption"><img src="/b.jpg"><p class="wp-caption-text">Credit line</p></div>`,
    );
    dropCaptions($, notKept);
    const text = $('body').text();
    for (const gone of ['Image copyright', 'Agency', 'The mayor', 'Credit line'])
      assert.ok(!text.includes(gone), gone);
    assert.equal($('img').length, 2);
    assert.ok(text.includes('ends properly'));
  });

  test('a heading is no caption, whatever its class says (a text style named "caption")', () => {
    const $ = load(
      '<h2 class="caption-s5-fx">The standfirst under the headline, a sentence long.</h2>' +
        '<div class="caption-s5-fx">A caption styled the same way.</div>',
    );
    dropCaptions($, notKept);
    const text = $('body').text();
    assert.ok(text.includes('The standfirst') && !text.includes('A caption styled'), text);
  });

  test('screen-reader labels go behind a design system\'s prefix too ("u-visually-hidden")', () => {
    const $ = load(
      '<a href="/e">Edition<span class="lrv-a-screen-reader-only">Switch edition</span></a>' +
        '<h2 class="u-visually-hidden">Article body</h2><div class="hidden-gems">Five quiet beaches.</div>',
    );
    dropCaptions($, notKept);
    const text = $('body').text();
    assert.ok(!text.includes('Switch edition') && !text.includes('Article body'), text);
    assert.ok(text.includes('Five quiet beaches'));
  });

  test('keeps long text, kept elements and a caption word in a long class name', () => {
    const long = PROSE.repeat(8);
    const $ = load(
      `<div class="caption">${long}</div><p class="credit keep-me">Kept credit</p>` +
        '<p class="article-body-with-caption-support-here">Named at length</p>',
    );
    dropCaptions($, (element: Element) => element.attribs.class?.includes('keep-me') ?? false);
    const text = $('body').text();
    for (const kept of ['ends properly', 'Kept credit', 'Named at length'])
      assert.ok(text.includes(kept), kept);
  });
});

describe('dropPictureText', () => {
  const run = (html: string) => {
    const $ = load(`<article>${html}</article>`);
    dropPictureText($, $('article').get(0)!, notKept, isSpacer);
    return $;
  };

  test('a video box becomes its picture: player label, title and source go', () => {
    const $ = run(
      `<p>${PROSE}</p><div><div><picture><img src="/v.jpg"></picture></div><div><p>Video Ad Feedback</p></div>` +
        `<div><p>Watch what happened outside the court</p><p>02:12 - Source: CNN</p></div></div><p>${PROSE}</p>`,
    );
    const text = $('article').text();
    for (const gone of ['Video Ad Feedback', 'Watch what', 'Source: CNN'])
      assert.ok(!text.includes(gone), gone);
    assert.equal($('picture img').length, 1);
    assert.equal($('p').length, 2);
  });

  test("keeps a listing's cards, a picture inside a paragraph or list item, and boxes with much text", () => {
    const card = (name: string) =>
      `<div><a href="/p"><img src="/${name}.jpg"></a><h3>${name}</h3><span>$19.00</span></div>`;
    for (const html of [
      `<div>${card('Lamp')}${card('Kettle')}${card('Shelf')}</div>`,
      '<p><img src="/i.png"> An icon beside a short line</p>',
      '<ul><li><img src="/a.png"><span>Blue</span></li></ul>',
      `<div><img src="/a.png"><p>${PROSE.repeat(6)}</p></div>`,
    ]) {
      const before = load(`<article>${html}</article>`)('article').text();
      assert.equal(run(html)('article').text(), before, html);
    }
  });
});

describe('the readability cleaner around its article', () => {
  test("keeps a section heading whose class Readability reads as chrome, and drops a picture's caption", () => {
    const page =
      `<html><body><article><p>${PROSE.repeat(4)}</p><h2 class="subheader">The second part</h2>` +
      `<div class="image"><img src="/a.jpg" width="600" height="400"><p class="caption">Workers at the house</p></div>` +
      `<p>${PROSE.repeat(4)}</p></article></body></html>`;
    const text = runChain(page, [{ name: 'readability' }, { name: 'text' }]);
    assert.ok(text.includes('The second part'), text);
    assert.ok(!text.includes('Workers at the house'), text);
  });

  test("a heading first in the article that says the page's <title> goes to the header", () => {
    // Too many words (by Thai combining marks) for a short line: only the title match moves it.
    const title = 'ผล DNA ยืนยัน ศพลอยแม่น้ำโขงเป็นคนสนิท อ.สุรชัย';
    const page =
      `<html><head><title>${title} | ประชาไท</title></head><body><h1>Site</h1><h1>Menu</h1>` +
      `<article><h2>${title}</h2><p>${PROSE.repeat(6)}</p></article></body></html>`;
    const $ = load(runChain(page, [{ name: 'readability' }]));
    assert.ok($(PAGE_HEADER).text().includes(title), $.html());
    $(PAGE_HEADER).remove();
    assert.ok(!$('article').text().includes(title), $.html());
  });
});

describe('hostile shapes', () => {
  // Parsing deep nesting is slow in itself (parse5): only the steps are timed.
  test('20,000 nested captions, 20,000 pictures side by side and 2,000 nested boxes finish promptly', () => {
    const nested = `${'<div class="caption">'.repeat(20_000)}x${'</div>'.repeat(20_000)}`;
    const gallery = `<div>${'<div><img src="/a.jpg"><span class="item">label</span></div>'.repeat(20_000)}</div>`;
    const boxes = `${'<div><img src="/a.jpg"><span>label</span>'.repeat(2_000)}${'</div>'.repeat(2_000)}`;
    const $ = load(`<article><p>${PROSE}</p>${nested}${gallery}${boxes}</article>`);
    const started = performance.now();
    dropCaptions($, notKept);
    dropPictureText($, $('article').get(0)!, notKept, isSpacer);
    assert.ok(performance.now() - started < 10_000);
    assert.ok($('article').text().includes('ends properly'));
    assert.equal($('span.item').length, 20_000);
  });
});
