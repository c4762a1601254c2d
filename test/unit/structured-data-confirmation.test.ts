// Values answered without a model only on strong confirmation: an author named by the page's own byline
// (not a comment's author element, not a related post's byline, not a line far from the headline), a date no
// other date of the page's dateline or entities contradicts, a description the page offers no rival summary
// for. Each test is a hand-written page that a weaker check would answer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answer, ld } from '../support/structured-pages.js';

/** A blog post's recipe by Ann on a site called "Plum Kitchen", with `body` as its HTML body. */
const post = (recipe: Record<string, unknown>, body = '', head = '', bodyClass = '') =>
  `<html><head>${head}${ld({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'WebSite', name: 'Plum Kitchen', url: 'https://plumkitchen.test/' },
      { '@type': 'Recipe', name: 'Plum Cake', ...recipe },
    ],
  })}</head><body class="${bodyClass}">${body}</body></html>`;
const byAnn = { author: { '@type': 'Person', name: 'Ann' } };
const author = (html: string, text: string) => answer({ author: 'string' }, html, text);

describe('authors', () => {
  const text = '# Plum Cake\nA moist cake of ripe plums.\n## Comments\nLovely! Thanks so much.';

  test("a comment's author element does not confirm the author; the post's own does", () => {
    const reply = '<ol class="comment-list"><li><span class="comment-author">Ann</span> Thanks!</li></ol>';
    assert.deepEqual(author(post(byAnn, reply), text).answered, []);
    const own = '<article><span class="entry-author">Ann</span></article>';
    assert.deepEqual(author(post(byAnn, own), text).data, { author: 'Ann' });
    // The body's classes ("comments-open") say nothing of where an author element stands.
    assert.deepEqual(author(post(byAnn, own, '', 'single comments-open'), text).data, { author: 'Ann' });
    const byId = '<div id="comments"><p><a class="url" rel="author">Ann</a></p></div>';
    assert.deepEqual(author(post(byAnn, byId), text).answered, []);
  });
});

describe('the first byline', () => {
  const byAnnLee = { author: { '@type': 'Person', name: 'Ann Lee' } };

  test("an author the page's first byline does not name goes to the model, even where a later one does", () => {
    const related = '# Plum Cake\nBy Bo Chen · May 2, 2024\nA moist cake.\n## You may also like\nBy Ann Lee';
    assert.deepEqual(author(post(byAnnLee), related).answered, []);
    const own = '# Plum Cake\nBy Ann Lee · May 2, 2024\nA moist cake.\n## You may also like\nBy Bo Chen';
    assert.deepEqual(author(post(byAnnLee), own).data, { author: 'Ann Lee' });
    // An author element does not outweigh the first byline either.
    const element = post(byAnnLee, '<span class="entry-author">Ann Lee</span>');
    assert.deepEqual(author(element, related).answered, []);
  });
});

describe('a name without a byline label', () => {
  const byAnnLee = { author: { '@type': 'Person', name: 'Ann Lee' } };
  const story = Array.from({ length: 14 }, (_, i) => `Step ${i + 1} of the cake, at length.`).join('\n');

  test('confirms the author under the headline, not far from it (an "about me" box)', () => {
    const under = `# Plum Cake\nAnn Lee\n${story}`;
    assert.deepEqual(author(post(byAnnLee), under).data, { author: 'Ann Lee' });
    const about = `# Plum Cake\n${story}\n## About me\nAnn Lee\nI bake every Sunday.`;
    assert.deepEqual(author(post(byAnnLee), about).answered, []);
  });
});

/** A news page's JSON-LD graph: its article (published `at`) and `others` beside it. */
const news = (at: string, others: unknown[] = [], body = '') =>
  `<html><head>${ld({
    '@context': 'https://schema.org',
    '@graph': [{ '@type': 'NewsArticle', headline: 'Plums', datePublished: at }, ...others],
  })}</head><body>${body}</body></html>`;
const published = (html: string, text: string) => answer({ published_date: 'string' }, html, text);

describe('published dates', () => {
  const at = '2019-03-30T08:00:00-04:00';
  const text = '# Plums\nBy Ann Lee\nMarch 30, 2019\nThe harvest doubled.';

  test("another entity of the page stating another day's publication goes to the model", () => {
    const page = { '@type': 'WebPage', name: 'Plums', datePublished: '2019-04-02T10:00:00Z' };
    assert.deepEqual(published(news(at, [page]), text).answered, []);
    const sameDay = { ...page, datePublished: '2019-03-30T12:00:00Z' };
    assert.deepEqual(published(news(at, [sameDay]), text).data, { published_date: at });
  });
});

describe('the dateline', () => {
  const at = '2023-12-17T19:06:22+03:30';

  test('another date above the structured one (a date bar over the headline) goes to the model', () => {
    const bar = 'Mon December 25, 2023\n# Plums\nDecember 17, 2023 - 22:36\nThe harvest doubled.';
    assert.deepEqual(published(news(at), bar).answered, []);
    const twoInOne = '# Plums\nFirst published 12 December 2023, December 17, 2023\nThe harvest doubled.';
    assert.deepEqual(published(news(at), twoInOne).answered, []);
  });

  test("an update's date, or a date in the story below the dateline, leaves the date answered", () => {
    const updated = '# Plums\nDecember 17, 2023 · Updated December 19, 2023\nThe harvest doubled.';
    assert.deepEqual(published(news(at), updated).data, { published_date: at });
    const story = '# Plums\nDecember 17, 2023 - 22:36\nOn March 2, 2019 the orchard opened.';
    assert.deepEqual(published(news(at), story).data, { published_date: at });
  });
});

describe('descriptions', () => {
  const cake = { description: 'A moist cake of ripe plums.' };
  const description = (html: string, text: string) => answer({ description: 'string' }, html, text);
  const tag = (content: string) => `<meta name="description" content="${content}">`;

  test('a description beside another paragraph the meta description states goes to the model', () => {
    const text = '# Plum Cake\nThe best cake of the summer, in one bowl.\nA moist cake of ripe plums.';
    const rival = post(cake, '', tag('The best cake of the summer, in one bowl.'));
    assert.deepEqual(description(rival, text).answered, []);
    // The meta description agreeing, or not shown as a paragraph of its own (a search snippet), does not.
    const same = post(cake, '', tag('A moist cake of ripe plums.'));
    assert.deepEqual(description(same, text).data, { description: 'A moist cake of ripe plums.' });
    const snippet = post(cake, '', tag('Plum cake recipe: moist, easy, ready in an hour.'));
    assert.deepEqual(description(snippet, text).data, { description: 'A moist cake of ripe plums.' });
  });
});
