// An article set in parts: like boxes of paragraphs, each in wrappers of its own, with a picture or a video
// between them (hand-written fixture shaped after news sites that do this). Readability takes one part with
// its own wrapper; the readability cleaner finds the others beside it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import {
  markParagraphs,
  missingParts,
  PART_MARK,
  standfirst,
} from '../../../activities/reading/cleaners/parts.js';

const readable = (html: string) => runChain(html, [{ name: 'readability' }, { name: 'text' }]);

const sentences = (part: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>In part ${part}, sentence ${i} tells more of the story of the river town, its mills and the people who kept them running through the long winters.</p>`,
  ).join('');

/** Each part three wrappers deep, as the site's grid puts it; a video or a picture between parts. */
const part = (name: string, n: number) =>
  `<div class="grid-outer"><div class="body-wrap"><div class="col-8"><div class="body-part">${sentences(name, n)}</div></div></div></div>`;
const between = (i: number) =>
  `<div class="grid-outer"><div class="media"><video src="/v/${i}.mp4"></video><span>Watch</span></div></div>`;

const page = (article: string, aside = '') =>
  `<html><head><title>The river town</title></head><body><header><a href="/">Home</a></header>` +
  `<article class="story"><h1>The river town</h1>${article}</article>${aside}<footer>© Paper</footer></body></html>`;

describe('articles in parts', () => {
  test('the readability cleaner keeps every part, in the page’s order', () => {
    const html = page(`${part('one', 2)}${between(1)}${part('two', 9)}${between(2)}${part('three', 5)}`);
    const text = readable(html);
    for (const name of ['one', 'two', 'three'])
      assert.ok(text.includes(`In part ${name}, sentence 1 tells`), `part ${name}: ${text}`);
    assert.ok(text.indexOf('part one') < text.indexOf('part two'));
    assert.ok(text.indexOf('part two') < text.indexOf('part three'));
    assert.ok(!text.includes('Watch') && !text.includes('© Paper'), text);
  });

  test('boxes alike holding a headline, another article or mostly links are no parts', () => {
    const $ = load(
      `<body><div class="stories">` +
        `<div class="story"><div class="body-part">${sentences('one', 3)}</div></div>` +
        `<div class="story"><h1>Another story</h1><div class="body-part">${sentences('other', 3)}</div></div>` +
        `<div class="story"><article>${sentences('next', 3)}</article></div>` +
        `<div class="story"><a href="/a">${'A long headline of a related story that links away. '.repeat(3)}</a>${sentences('teaser', 1)}</div>` +
        `<div class="story"><div class="body-part">${sentences('two', 1)}</div></div></div></body>`,
    );
    markParagraphs($);
    const picked = new Set(
      $('.story')
        .first()
        .find(`[${PART_MARK}]`)
        .map((_, p) => p.attribs[PART_MARK]!),
    );
    const { before, after } = missingParts($, picked);
    assert.equal(before.length, 0);
    assert.deepEqual(
      after.map((found) => $(found).text().slice(0, 8)),
      ['In part two'.slice(0, 8)],
    );
  });

  test('boxes without a class, or paragraphs the pick already holds, add nothing', () => {
    const $ = load(
      `<body><div><div>${sentences('one', 2)}</div><div>${sentences('two', 2)}</div></div></body>`,
    );
    markParagraphs($);
    assert.deepEqual(missingParts($, new Set(['0', '1'])), { before: [], after: [] });
    assert.deepEqual(missingParts($, new Set()), { before: [], after: [] });
  });

  test('thousands of boxes stay linear; a page of thousands of unlike boxes is looked at a bounded number of times', () => {
    const like = Array.from(
      { length: 3_000 },
      (_, i) => `<div class="part">${sentences(String(i), 1)}</div>`,
    );
    const $ = load(`<body><div class="body">${like.join('')}</div></body>`);
    markParagraphs($);
    const started = process.cpuUsage();
    const { after } = missingParts($, new Set(['0']));
    const used = process.cpuUsage(started);
    assert.equal(after.length, 2_999);
    assert.ok((used.user + used.system) / 1000 < 3_000);
    const unlike = Array.from(
      { length: 500 },
      (_, i) =>
        `<div class="k${i}"><div class="p">${sentences(String(i), 1)}</div><div class="p">${sentences('x', 1)}</div></div>`,
    );
    const $unlike = load(`<body><div class="body">${unlike.join('')}</div></body>`);
    markParagraphs($unlike);
    const picked = new Set(Array.from({ length: 500 }, (_, i) => String(2 * i)));
    assert.deepEqual(missingParts($unlike, picked), { before: [], after: [] });
  });
});

describe('the standfirst', () => {
  const body = sentences('one', 6);
  const story = (head: string, after = '') =>
    `<html><head><title>The river town</title></head><body><div class="top"><div class="head"><h1>The river town</h1>${head}</div>` +
    `<div class="story-body">${body}</div>${after}</div></body></html>`;

  test('the sentence under the title that Readability leaves out opens the body', () => {
    const text = readable(story('<p class="dek">Its mills closed, but the town found a new trade.</p>'));
    assert.ok(text.includes('Its mills closed, but the town found a new trade.'), text);
    assert.ok(text.indexOf('Its mills closed') < text.indexOf('In part one, sentence 0'), text);
  });

  test('a byline, a kicker, a line of links or a box after the body is no standfirst', () => {
    const text = (html: string) => {
      const $ = load(html);
      return standfirst($, $('.story-body').text(), 'The river town', 'Ada Lovelace');
    };
    assert.equal(text(story('<p>By Ada Lovelace, updated 3:31 p.m.</p>')), null);
    assert.equal(text(story('<p>Ada Lovelace wrote this on Monday.</p>')), null);
    assert.equal(text(story('<p>Towns</p>')), null);
    assert.equal(text(story('<p><a href="/a">Read the whole series on river towns here.</a></p>')), null);
    // Past the body, a login prompt or a newsletter box is the page's.
    assert.equal(
      text(story('', '<div class="gate">Thanks for reading. Create your free account now.</div>')),
      null,
    );
    // Only under the h1 that is the title: a dialog's h1 has none.
    const $ = load(story('<p>Its mills closed, but the town found a new trade.</p>'));
    assert.equal(standfirst($, '', 'Another title', ''), null);
    assert.equal(
      standfirst($, '', 'The river town', ''),
      'Its mills closed, but the town found a new trade.',
    );
  });
});
