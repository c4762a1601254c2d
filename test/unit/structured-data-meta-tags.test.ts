// A structured author or published date the page's own meta tags contradict: the JSON-LD names one writer and
// the author meta tags another, or the JSON-LD's date falls on another day than the publication-date tags';
// each goes to the model, while a page whose tags agree (or state no person, or no date) is answered.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answer, ld, page } from '../support/structured-pages.js';

const meta = (name: string, content: string) => `<meta name="${name}" content="${content}">`;
/** A news article whose JSON-LD is `props`, with `tags` in the head beside it. */
const article = (props: Record<string, unknown>, tags = '') =>
  page(
    `${ld({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Plums', ...props })}${tags}`,
    '',
  );
const byAnn = { author: { '@type': 'Person', name: 'Ann Lee' } };
const text = '# Plums\nBy Ann Lee\nMarch 30, 2019\nThe harvest doubled.';
const author = (html: string) => answer({ author: 'string' }, html, text);
const published = (html: string) => answer({ published_date: 'string' }, html, text);

describe('author meta tags', () => {
  test('an author no author meta tag names goes to the model', () => {
    for (const tag of ['author', 'parsely-author', 'sailthru.author', 'dc.creator', 'byl']) {
      const content = tag === 'byl' ? 'By Bo Chen' : 'Bo Chen';
      assert.deepEqual(author(article(byAnn, meta(tag, content))).answered, [], tag);
      const agrees = tag === 'byl' ? 'By Ann Lee' : 'Ann Lee';
      assert.deepEqual(author(article(byAnn, meta(tag, agrees))).data, { author: 'Ann Lee' }, tag);
    }
    // `article:author` read after a profile URL in its place: the `author` tag still counts.
    const urlFirst = `<meta property="article:author" content="https://social.test/ann">${meta('author', 'Bo Chen')}`;
    assert.deepEqual(author(article(byAnn, urlFirst)).answered, []);
    // A profile's address, with or without its scheme, names no one.
    const profile = '<meta property="article:author" content="facebook.com/dailyplum">';
    assert.deepEqual(author(article(byAnn, profile)).data, { author: 'Ann Lee' });
  });

  test('every tag naming people must name only the answer’s; a tag naming the publisher states no person', () => {
    const publisher = `${meta('author', 'Plumtree Media Group')}<meta property="article:author" content="Ann Lee">`;
    assert.deepEqual(author(article(byAnn, publisher)).data, { author: 'Ann Lee' });
    // One tag agreeing is not enough where another names someone else, or a co-author beside the answer's.
    const two = `${meta('parsely-author', 'Bo Chen')}${meta('sailthru.author', 'Ann Lee')}`;
    assert.deepEqual(author(article(byAnn, two)).answered, []);
    const coAuthor = `${meta('parsely-author', 'Ann Lee, Bo Chen')}${meta('sailthru.author', 'Ann Lee')}`;
    assert.deepEqual(author(article(byAnn, coAuthor)).answered, []);
  });
});

describe('publication-date meta tags', () => {
  const at = { datePublished: '2019-03-30T08:00:00-04:00' };
  test('a published date on another day than the tags state goes to the model', () => {
    for (const tag of ['parsely-pub-date', 'sailthru.date', 'pubdate']) {
      const other = meta(tag, '2019-04-02T10:00:00Z');
      assert.deepEqual(published(article(at, other)).answered, [], tag);
    }
    const og = '<meta property="article:published_time" content="2019-04-02T10:00:00Z">';
    assert.deepEqual(published(article(at, og)).answered, []);
  });

  test('a tag of the same day in a reader’s zone agrees; a draft date (dc.date) is not read', () => {
    const utc = meta('parsely-pub-date', '2019-03-31T01:00:00Z'); // 21:00 on the 30th in New York
    assert.deepEqual(published(article(at, utc)).data, { published_date: '2019-03-30T08:00:00-04:00' });
    const draft = `${meta('dc.date', '2019-01-12')}${meta('dcterms.created', '2019-01-12')}`;
    assert.deepEqual(published(article(at, draft)).data, { published_date: '2019-03-30T08:00:00-04:00' });
  });
});
