// Pages whose content is a list of like items: a shop's category grid and a forum thread, each beside a
// newsletter box or a welcome note and a footer with more prose than any one item (fixtures written for
// these tests). Readability alone picked the boxes; the items are the content.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { largestItems, MIN_ITEMS } from '../../../activities/reading/cleaners/listing.js';

const page = (name: string) => readFileSync(new URL(`../../fixtures/pages/${name}`, import.meta.url), 'utf8');
const LISTING = page('listing.html');
const FORUM = page('forum.html');
const readable = (html: string) => runChain(html, [{ name: 'readability' }, { name: 'text' }]);

const PRODUCTS = ['Stoneware Teapot', 'Copper Kettle', 'Linen Tea Towels', 'Oak Serving Board', 'Enamel Mug'];
const PRICES = ['£34.00', '£58.00', '£18.50', '£42.00', '£9.00', '£12.00', '£15.00', '£22.00'];
const POSTERS = ['brambleandrose', 'crumbcat', 'oldmillbaker', 'hearthloaf'];

describe('largestItems', () => {
  test("finds a grid's cards and a thread's posts", () => {
    const grid = largestItems(load(LISTING));
    assert.equal(grid?.container.attribs.class, 'grid');
    assert.equal(grid?.count, 8);
    const thread = largestItems(load(FORUM));
    assert.equal(thread?.container.attribs.class, 'thread');
    assert.equal(thread?.count, 5);
  });

  test('a menu (items of link text only), lines of text and too few items are no listing', () => {
    const links = Array.from({ length: 8 }, (_, i) => `<li><a href="/c/${i}">Category number ${i}</a></li>`);
    assert.equal(largestItems(load(`<ul>${links.join('')}</ul>`)), null);
    const lines = Array.from(
      { length: 8 },
      (_, i) => `<p>Paragraph ${i} of an article, in full sentences.</p>`,
    );
    assert.equal(largestItems(load(`<div>${lines.join('')}</div>`)), null);
    // Nor are paragraphs each in a wrapper of its own: an article's body, not items.
    const wrapped = lines.map((line) => `<div class="paragraph">${line}</div>`);
    assert.equal(largestItems(load(`<div>${wrapped.join('')}</div>`)), null);
    const cards = Array.from(
      { length: MIN_ITEMS },
      (_, i) => `<div class="card">Card ${i} with a blurb</div>`,
    );
    assert.equal(largestItems(load(`<div>${cards.slice(1).join('')}</div>`)), null);
    assert.equal(largestItems(load(`<div>${cards.join('')}</div>`))?.count, MIN_ITEMS);
  });

  test('rows of a table are items of the table', () => {
    const rows = Array.from({ length: 6 }, (_, i) => `<tr><td>Branch ${i}</td><td>Open 9 to 5</td></tr>`);
    assert.equal(largestItems(load(`<table>${rows.join('')}</table>`))?.container.name, 'table');
  });
});

describe('the readability cleaner on listings and threads', () => {
  test('a category page keeps every product with its price, not the newsletter box or the footer', () => {
    const text = readable(LISTING);
    for (const kept of [...PRODUCTS, ...PRICES, 'Glazed by hand in Stoke'])
      assert.ok(text.includes(kept), kept);
    for (const gone of ['Letters from the workshop', 'Every Sunday morning', 'family-run shop', 'Returns'])
      assert.ok(!text.includes(gone), gone);
  });

  test('a thread keeps every post in order, not the welcome note or the footer', () => {
    const text = readable(FORUM);
    assert.ok(text.startsWith('Starter smells of nail varnish'), text.slice(0, 80));
    for (const kept of [...POSTERS, 'Is it dead, or can it be saved?', 'slows it right down'])
      assert.ok(text.includes(kept), kept);
    const order = ['Is it dead', 'Not dead, just hungry', 'Agree with crumbcat', 'doubled already'];
    assert.deepEqual(
      order.map((line) => text.indexOf(line)),
      order.map((line) => text.indexOf(line)).sort((a, b) => a - b),
    );
    for (const gone of ['New here?', 'Welcome to the', 'run by volunteers'])
      assert.ok(!text.includes(gone), gone);
  });

  test('a listing keeps the heading and lead above its items, not the box after them', () => {
    const items = Array.from(
      { length: 8 },
      (_, i) =>
        `<li class="quote"><blockquote><p>“Quote ${i}: quick, clear and friendly help.”</p>` +
        `<small>Letter from client ${i}</small></blockquote></li>`,
    ).join('');
    const text = readable(
      `<div class="intro"><h1>Welcome!</h1><p class="lead">I am a lawyer for start-ups and small firms, ` +
        'advising on contracts and IT law. I look forward to meeting you.</p></div>' +
        `<div class="quotes"><h3>What clients say</h3><ul>${items}</ul></div>` +
        '<div class="box"><p>Visit the office at Main Street 1, in the old mill by the river, open on weekdays ' +
        'from nine to five, and on Saturdays by appointment only.</p></div>',
    );
    assert.ok(text.includes('I look forward to meeting you'), text.slice(0, 300));
    for (let i = 0; i < 8; i++) assert.ok(text.includes(`Quote ${i}:`), `Quote ${i}`);
    assert.ok(text.indexOf('I look forward') < text.indexOf('What clients say'));
    assert.ok(text.indexOf('What clients say') < text.indexOf('Quote 0'));
    assert.ok(!text.includes('Visit the office'), text.slice(-200));
  });

  test('a thread taken with the boxes after it ends with its last post', () => {
    const posts = Array.from(
      { length: 10 },
      (_, i) =>
        `<div class="message"><div class="user">member${i}</div><div class="body">Post ${i}: the cat sleeps ` +
        'on the window bench every night and in the morning there are black crumbs on the cover again, which ' +
        'is why I am asking here whether anyone knows what it could be and what helps against it.</div></div>',
    ).join('');
    const meta = ['Started by member0', 'Started on 27 September', 'Replies: 9', 'Views: 812', 'Tags: cats'];
    const text = readable(
      `<div class="page"><h1>Black crumbs on the cat bed every night</h1>` +
        `<ul class="meta">${meta.map((line) => `<li>${line}</li>`).join('')}</ul>` +
        `<div class="messages">${posts}</div><h3>Similar threads</h3>` +
        '<p>Since 2006 experienced owners have helped in our large cat forum with emergencies, questions and ' +
        'problems with your animal.</p></div>',
    );
    for (let i = 0; i < 10; i++) assert.ok(text.includes(`Post ${i}:`), `Post ${i}`);
    assert.ok(!text.includes('Since 2006'), text.slice(-300));
  });

  test('a short article of several paragraphs beside a longer run of cards stays the article', () => {
    const article = Array.from(
      { length: 6 },
      (_, i) => `<p>Short paragraph ${i} of the story, in a sentence.</p>`,
    );
    const cards = Array.from(
      { length: 10 },
      (_, i) =>
        `<div class="slide"><h3>Slide ${i}</h3><div>Slide ${i} says a good deal more about the story.</div></div>`,
    );
    const text = readable(`<h1>A story</h1><div>${article.join('')}</div><div>${cards.join('')}</div>`);
    assert.ok(text.includes('Short paragraph 5 of the story'), text.slice(0, 300));
  });

  test('an article with comments beside it stays the article: its prose outweighs any box', () => {
    const article = Array.from(
      { length: 8 },
      (_, i) =>
        `<p>Paragraph ${i} of the report explains what the council decided, why it matters to residents, ` +
        'and what happens next, in sentences long enough to read as prose.</p>',
    ).join('');
    const comments = Array.from(
      { length: 16 },
      (_, i) =>
        `<li class="note"><b>reader${i}</b><div>I think the council got this one wrong, frankly.</div></li>`,
    ).join('');
    const text = readable(`<h1>Council budget</h1><div class="story">${article}</div><ul>${comments}</ul>`);
    // Not swapped for the comments: the article's paragraphs all stay, first.
    for (let i = 0; i < 8; i++) assert.ok(text.includes(`Paragraph ${i} of the report`), text.slice(0, 200));
    assert.ok(
      text.indexOf('Paragraph 7') < Math.max(0, text.indexOf('reader0')) || !text.includes('reader0'),
    );
    assert.ok(
      !runChain(`<div class="story">${article}</div><ul>${comments}</ul>`, [
        { name: 'readability' },
      ]).includes('data-cleaner'),
    );
  });
});
