// A landing page made of sections under headings of their own (a hero, the benefits, quotes of customers, how
// the service keeps brands safe, success stories), with no main content marked: page written for this test.
// Readability alone picked the long quotes and left the other sections out; they are the page's text too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { MIN_SECTIONS, pageSections } from '../../../activities/reading/cleaners/sections.js';

const readable = (html: string) => runChain(html, [{ name: 'readability' }, { name: 'text' }]);

const QUOTE =
  'Working with the team was a pleasure, and the campaign reached exactly the students we wanted, in every city.';
const quotes = Array.from(
  { length: 3 },
  (_, i) =>
    `<div class="slide"><p class="quote">"${QUOTE} Campaign ${i} went well.",</p><p class="name">Customer ${i}, Marketing</p></div>`,
).join('');

const section = (heading: string, text: string) =>
  `<div class="section"><div class="container"><h2>${heading}</h2><div class="columns"><div class="column"><p>${text}</p></div></div></div></div>`;

const LANDING = `<html><head><title>Advertise with Ruckus</title></head><body>
<div class="topbar"><a href="/">Home</a> <a href="/blog">Blog</a> <a href="/contact">Contact</a></div>
${section('Reach students where they are', 'Ruckus reaches two million students and young professionals in their own neighbourhood, every day of the term. They read it between lectures and on the way home.')}
${section('Your benefits', 'Young branding: students form lasting habits with the brands they meet during these years of their lives. More than a quarter of them write posts themselves.')}
<div class="quotes"><div class="container"><h2>What our partners say</h2><div class="slider"><div class="mask">${quotes}</div><div class="arrow">›</div></div></div></div>
${section('Brand safety', 'Every post is checked against a blacklist first, then read by the community, then by our own moderators within minutes. No advert runs beside a post that was reported.')}
${section('Success stories', 'Let the stories of our partners inspire you, and start a campaign of your own today with our team beside you. We answer every request within a day.')}
<div class="legal">© 2024 Ruckus GmbH. All rights reserved.</div>
</body></html>`;

describe('pageSections', () => {
  test("a landing page's sections, in order, when Readability picked one", () => {
    const $ = load(LANDING);
    $('p').each((index, p) => {
      p.attribs['data-cleaner-paragraph'] = String(index);
    });
    const quoteMarks = new Set(
      $('.quote')
        .map((_, p) => p.attribs['data-cleaner-paragraph']!)
        .get(),
    );
    const sections = pageSections($, quoteMarks);
    assert.deepEqual(
      sections?.map((element) => $(element).find('h2').text()),
      [
        'Reach students where they are',
        'Your benefits',
        'What our partners say',
        'Brand safety',
        'Success stories',
      ],
    );
  });

  test('a page marking its main content, a pick across sections or fewer headed sections is left alone', () => {
    const marked = (html: string, picked: (p: number) => boolean) => {
      const $ = load(html);
      const marks = new Set<string>();
      $('p').each((index, p) => {
        p.attribs['data-cleaner-paragraph'] = String(index);
        if (picked(index)) marks.add(String(index));
      });
      return pageSections($, marks);
    };
    const quotesOnly = (index: number) => index >= 2 && index < 8;
    assert.notEqual(marked(LANDING, quotesOnly), null);
    assert.equal(
      marked(LANDING.replace('<body>', '<body><main>').replace('</body>', '</main></body>'), quotesOnly),
      null,
    );
    assert.equal(
      marked(LANDING, (index) => index >= 1),
      null,
    );
    const fewer = LANDING.replace(/<h2>(Brand safety|Success stories)<\/h2>/g, '');
    assert.ok(MIN_SECTIONS > 3);
    assert.equal(marked(fewer, quotesOnly), null);
  });
});

describe('the readability cleaner on a landing page', () => {
  test("keeps every section's text, not only the quotes", () => {
    const text = readable(LANDING);
    for (const kept of [
      'two million students',
      'Young branding',
      'Campaign 2 went well',
      'blacklist',
      'inspire you',
    ])
      assert.ok(text.includes(kept), kept);
    assert.ok(!text.includes('All rights reserved'));
  });
});
