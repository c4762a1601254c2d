// Bylines a page shows that name no person: an author typed as an organisation, one holding the site's own
// name or a web address, an agency's, a desk's, a team's or a company's; each goes to the model, while a
// person's name in the same place is answered. And a published date whose page shows the update's date, on
// another day, beside it: the page shows two dates for the article, so the model decides.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answer, ld, page } from '../support/structured-pages.js';

/** A news article on a site called "Daily Plum" (dailyplum.test), its JSON-LD in the head. */
const article = (props: Record<string, unknown>, body = '') =>
  page(
    ld({
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Daily Plum', url: 'https://dailyplum.test/' },
        { '@type': 'NewsArticle', headline: 'Plums', ...props },
      ],
    }),
    body,
  );
const person = (name: string) => ({ '@type': 'Person', name });
const author = (html: string, text: string) => answer({ author: 'string' }, html, text);
const published = (html: string, text: string) => answer({ published_date: 'string' }, html, text);

describe('bylines of no person', () => {
  test('an author typed as an organisation goes to the model; the same name typed as a person is answered', () => {
    const text = '# Plums\nBy Plum Wire\nThe harvest doubled.';
    const org = article({ author: { '@type': 'Organization', name: 'Plum Wire' } });
    assert.deepEqual(author(org, text).answered, []);
    const brand = article({ author: { '@type': ['Thing'], name: 'Plum Wire' } });
    assert.deepEqual(author(brand, text).answered, []);
    const ann = article({ author: person('Ann Lee') });
    assert.deepEqual(author(ann, '# Plums\nBy Ann Lee\nThe harvest doubled.').data, { author: 'Ann Lee' });
    // A reference to the site's Organization node is the organisation too.
    const ref = page(
      ld({
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'Organization', '@id': '#org', name: 'Plum Wire' },
          { '@type': 'NewsArticle', headline: 'Plums', author: { '@id': '#org' } },
        ],
      }),
      '',
    );
    assert.deepEqual(author(ref, text).answered, []);
  });

  test("an author holding the site's name as words, or a web address, goes to the model", () => {
    for (const name of ['Ann - Daily Plum', 'Daily Plum Kitchen', 'DailyPlum.com', 'Plumwire.com']) {
      const html = article({ author: person(name) });
      assert.deepEqual(author(html, `# Plums\nBy ${name}\nThe harvest doubled.`).answered, [], name);
    }
    // A name that only shares letters with the site's name is a person's.
    const daily = article({ author: person('Dailyn Plumber') });
    assert.deepEqual(author(daily, '# Plums\nBy Dailyn Plumber\nThe harvest doubled.').data, {
      author: 'Dailyn Plumber',
    });
  });

  test("an agency's, a desk's, a team's or a company's byline alone goes to the model", () => {
    const names = [
      'The Associated Press',
      'Press Trust of India',
      'AFP',
      'Web Desk',
      'Our Bureau',
      'Equipa Ameixa',
      'Plumtree Media Group',
      'Plumtree Inc',
    ];
    for (const name of names) {
      const html = article({ author: person(name) });
      assert.deepEqual(author(html, `# Plums\nBy ${name}\nThe harvest doubled.`).answered, [], name);
    }
  });
});

describe('published dates beside an update of another day', () => {
  test("a dateline showing the update's date of another day goes to the model", () => {
    const html = article({
      datePublished: '2019-03-30T08:00:00-04:00',
      dateModified: '2023-12-19T09:00:00-05:00',
    });
    const both = '# Plums\nMarch 30, 2019 · Updated December 19, 2023\nThe harvest doubled.';
    assert.deepEqual(published(html, both).answered, []);
    // The update's date not shown: the published date is the page's one date.
    assert.deepEqual(published(html, '# Plums\nMarch 30, 2019\nThe harvest doubled.').data, {
      published_date: '2019-03-30T08:00:00-04:00',
    });
    // An update of the same day is no second date.
    const sameDay = article({
      datePublished: '2023-12-19T08:00:00-05:00',
      dateModified: '2023-12-19T17:00:00-05:00',
    });
    const text = '# Plums\nDecember 19, 2023 · Updated December 19, 2023\nThe harvest doubled.';
    assert.deepEqual(published(sameDay, text).data, { published_date: '2023-12-19T08:00:00-05:00' });
  });
});
