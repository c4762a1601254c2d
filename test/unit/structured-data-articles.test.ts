// News articles answered without a model only where the visible page agrees, each case shaped like a wrong
// value seen on real news pages: a title that is the site's name, cut short or the start of a longer heading;
// authors the byline, the author meta tag or the author elements list otherwise, credited only as editors or
// contributors, or run together in one name; a published date the page shows only as an update's. And what
// the page confirms in another form is answered: an author only in the header's byline element, a date only in
// a <time datetime> element or shown in the reader's zone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answer, ld, page } from '../support/structured-pages.js';

/** A news article on a site called "Daily Plum", its JSON-LD in the head, `body` its visible HTML. */
const article = (props: Record<string, unknown>, body = '', head = '') =>
  page(
    `${head}${ld({
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Daily Plum', url: 'https://dailyplum.test/' },
        { '@type': 'NewsArticle', ...props },
      ],
    })}`,
    body,
  );
const person = (name: string) => ({ '@type': 'Person', name });
const title = (html: string, text: string) => answer({ title: 'string' }, html, text);
const author = (html: string, text: string) => answer({ author: 'string' }, html, text);
const authors = (html: string, text: string) => answer({ authors: ['string'] }, html, text);
const published = (html: string, text: string) => answer({ published_date: 'string' }, html, text);

describe('article titles', () => {
  test("the site's name as the article's name goes to the model", () => {
    const html = article({ name: 'Daily Plum', headline: 'Plums are back' });
    assert.deepEqual(title(html, 'Daily Plum\n# Plums are back').answered, []);
  });

  test('a title cut short, or the start of a longer heading, goes to the model; the whole heading is answered', () => {
    const cut = article({ headline: 'Plum harvest doubles as growers enjoy a summer of...' });
    assert.deepEqual(title(cut, '# Plum harvest doubles as growers enjoy a summer of sun').answered, []);
    const short = article({ headline: 'Plum harvest doubles' });
    assert.deepEqual(title(short, '# Plum harvest doubles: ‘A summer of sun’').answered, []);
    assert.deepEqual(title(short, '# Plum harvest doubles\nPlum harvest doubles this year.').data, {
      title: 'Plum harvest doubles',
    });
  });
});

describe('titles the page does not show as its heading', () => {
  test("a title that is not one of the page's headings goes to the model; its h1 confirms it", () => {
    const html = article({ headline: 'Plums are back' });
    assert.deepEqual(title(html, 'Plums are back in the shops this week.').answered, []);
    // An SEO headline beside the page's own.
    assert.deepEqual(title(html, '# Plums return to the shops\nPlums are back.').answered, []);
    // The cleaned text lost the heading's mark, the page's h1 still names the title.
    const h1 = article({ headline: 'Plums are back' }, '<header><h1>Plums are <em>back</em></h1></header>');
    assert.deepEqual(title(h1, 'Plums are back\nThe harvest doubled.').data, { title: 'Plums are back' });
  });
});

describe('article authors', () => {
  test('a byline or line listing more people than the structured author goes to the model', () => {
    const html = article({ author: person('Ann Lee') });
    assert.deepEqual(author(html, '# Plums\nBy Ann Lee and Bo Chen on May 2, 2024').answered, []);
    assert.deepEqual(author(html, '# Plums\nAnn Lee, Bo Chen, Cy Dunn').answered, []);
    // One item after a comma is a job title, not a co-author.
    assert.deepEqual(author(html, '# Plums\nBy Ann Lee, Senior Correspondent').data, { author: 'Ann Lee' });
    assert.deepEqual(author(html, '# Plums\nBy Ann Lee, Politics Reporter May 2').data, {
      author: 'Ann Lee',
    });
  });

  test("a co-author named only by another byline (a related post's) goes to the model", () => {
    const html = article({ author: [person('Ann Lee'), person('Bo Chen')] });
    assert.deepEqual(authors(html, '# Plums\nBy Ann Lee\n## Related\nApples too\nBy Bo Chen').answered, []);
    assert.deepEqual(authors(html, '# Plums\nBy Ann Lee and Bo Chen').data, {
      authors: ['Ann Lee', 'Bo Chen'],
    });
    // Each in an author element of their own: the second may be an editor's or a related post's.
    const apart = article(
      { author: [person('Ann Lee'), person('Bo Chen')] },
      '<a rel="author">Ann Lee</a><aside><a rel="author">Bo Chen</a></aside>',
    );
    assert.deepEqual(authors(apart, '# Plums\nThe harvest doubled.').answered, []);
    const together = article(
      { author: [person('Ann Lee'), person('Bo Chen')] },
      '<p class="byline"><a rel="author">Ann Lee</a> and <a rel="author">Bo Chen</a></p>',
    );
    assert.deepEqual(authors(together, '# Plums\nThe harvest doubled.').data, {
      authors: ['Ann Lee', 'Bo Chen'],
    });
  });

  test('an author meta tag naming someone the structured data does not goes to the model', () => {
    const others = article(
      { author: person('Ann Lee') },
      '',
      '<meta name="author" content="Ann Lee,Bo Chen">',
    );
    assert.deepEqual(author(others, '# Plums\nAnn Lee').answered, []);
    const staff = article(
      { author: person('Ann Lee') },
      '',
      '<meta name="author" content="Daily Plum Staff">',
    );
    assert.deepEqual(author(staff, '# Plums\nAnn Lee').data, { author: 'Ann Lee' });
  });

  test('one name holding several people or credentials, or an agency beside a reporter, goes to the model', () => {
    const joined = article({ author: person('Ann Lee and Bo Chen, Financial Times') });
    assert.deepEqual(authors(joined, '# Plums\nBy Ann Lee and Bo Chen, Financial Times').answered, []);
    const credentials = article({ author: person('Ann Lee MS, RDN') });
    assert.deepEqual(authors(credentials, '# Plums\nBy Ann Lee MS, RDN').answered, []);
    const agency = article({ author: [person('Ann Lee'), person('The Associated Press')] });
    assert.deepEqual(author(agency, '# Plums\nBy Ann Lee and The Associated Press').answered, []);
    // An agency's byline alone names no person either (structured-data-site-bylines.test.ts).
    const wire = article({ author: person('The Associated Press') });
    assert.deepEqual(author(wire, '# Plums\nBy The Associated Press').answered, []);
  });

  test("an author only in the header's byline element is confirmed; its co-authors and credits count", () => {
    const html = article(
      { author: person('Ann Lee') },
      '<div class="byline">By <a rel="author">Ann Lee</a></div>',
    );
    assert.deepEqual(author(html, '# Plums\nThe harvest doubled.').data, { author: 'Ann Lee' });
    const two = article(
      { author: person('Ann Lee') },
      '<div class="byline__names">By Ann Lee and Bo Chen, CNN</div>',
    );
    assert.deepEqual(author(two, '# Plums\nThe harvest doubled.').answered, []);
    const contributor = article(
      { author: [person('Ann Lee'), person('Bo Chen')] },
      '<div class="author-byline">By Ann Lee</div><span class="author-byline__contributors">Contributions from Bo Chen</span>',
    );
    assert.deepEqual(author(contributor, '# Plums\nThe harvest doubled.').answered, []);
    const edited = article({ author: [person('Ann Lee'), person('Bo Chen')] });
    assert.deepEqual(author(edited, '# Plums\nBy Ann Lee | Edited by Bo Chen').answered, []);
  });
});

describe('article dates', () => {
  test('a published date the page shows only as an update goes to the model; a modified one is answered', () => {
    const html = article({
      datePublished: '2023-12-22T16:52:44-05:00',
      dateModified: '2023-12-22T16:52:44-05:00',
    });
    const text = '# Plums\nUpdated on: Dec 22, 2023 4:52 pm';
    assert.deepEqual(published(html, text).answered, []);
    assert.deepEqual(answer({ date_modified: 'string' }, html, text).data, {
      date_modified: '2023-12-22T16:52:44-05:00',
    });
    assert.deepEqual(published(html, '# Plums\nPublished Dec 22, 2023 · Updated Dec 22, 2023').data, {
      published_date: '2023-12-22T16:52:44-05:00',
    });
  });

  test('a <time datetime> element naming the same instant confirms the date; an update time does not', () => {
    const at = '2023-12-23T03:22:07Z';
    const html = article(
      { datePublished: at },
      '<time datetime="2023-12-22T22:22:07-0500">2 hours ago</time>',
    );
    assert.deepEqual(published(html, '# Plums\nThe harvest doubled.').data, { published_date: at });
    const other = article({ datePublished: at }, '<time datetime="2023-12-20T10:00:00-0500">Dec 20</time>');
    assert.deepEqual(published(other, '# Plums\nThe harvest doubled.').answered, []);
    const update = article(
      { datePublished: at },
      '<p>Updated <time datetime="2023-12-22T22:22:07-0500">2 hours ago</time></p>',
    );
    assert.deepEqual(published(update, '# Plums\nThe harvest doubled.').answered, []);
  });

  test('a date shown far from the headline (a list of the latest articles) goes to the model', () => {
    const html = article({ datePublished: '2023-12-22T10:00:00-05:00' });
    const story = Array.from({ length: 15 }, (_, i) => `Paragraph ${i + 1} of the story.`).join('\n');
    const latest = `# Plums\n${story}\n## Latest\nDecember 22, 2023 · Apples too`;
    assert.deepEqual(published(html, latest).answered, []);
    assert.deepEqual(published(html, `Menu\n# Plums\nDecember 22, 2023 · 10:00\n${story}`).data, {
      published_date: '2023-12-22T10:00:00-05:00',
    });
    // A <time> of the same date without its instant counts only as the page's first (its dateline).
    const times =
      '<time datetime="2023-12-20">Dec 20</time><li><time datetime="2023-12-22">Dec 22</time></li>';
    assert.deepEqual(published(article({ datePublished: '2023-12-22' }, times), '# Plums').answered, []);
    const first =
      '<time datetime="2023-12-22">Dec 22</time><li><time datetime="2023-12-20">Dec 20</time></li>';
    assert.deepEqual(published(article({ datePublished: '2023-12-22' }, first), '# Plums').data, {
      published_date: '2023-12-22',
    });
  });

  test("a time in UTC shown as the reader's date (the day before in New York) is confirmed", () => {
    const html = article({ datePublished: '2023-12-24T01:06:51+00:00' });
    assert.deepEqual(published(html, '# Plums\nDecember 23, 2023').data, {
      published_date: '2023-12-24T01:06:51+00:00',
    });
    // With its own zone written, the date is the page's date: the day before is another date.
    const zoned = article({ datePublished: '2023-12-24T01:06:51-05:00' });
    assert.deepEqual(published(zoned, '# Plums\nDecember 23, 2023').answered, []);
  });
});
