// Authors and descriptions answered without a model only where the visible page agrees: a byline naming
// someone else, a site's staff, the site under another spelling, a description that is a heading, a search
// snippet or the site's tagline all go to the model; a blog whose site is its author's person does not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pageBylines } from '../../activities/reading/structured-data/bylines.js';
import { answer, ld, page } from '../support/structured-pages.js';

/** A blog post's recipe with its author, on a site called "Plum Kitchen". */
const post = (recipe: Record<string, unknown>, extra: unknown[] = [], head = '') =>
  page(
    `${head}${ld({
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Plum Kitchen', url: 'https://plumkitchen.test/' },
        { '@type': 'Recipe', name: 'Plum Cake', ...recipe },
        ...extra,
      ],
    })}`,
    '',
  );
const person = (name: string) => ({ '@type': 'Person', name });
const author = (html: string, text: string) => answer({ author: 'string' }, html, text);

describe('bylines', () => {
  test('read after a label at the start of a line, in markdown, tables, or on the next line', () => {
    const text = [
      'By Jenn Segal · March 2, 2024',
      '**Author:** Matt Ivan',
      '| Author | kachasan |',
      '##### Author:',
      'Tawnie Graham',
      'By: Author Shannon Epstein',
      'By Ree DrummondPublished: Aug 6, 2012',
    ].join('\n');
    assert.deepEqual(pageBylines(text), [
      ['jenn segal march 2 2024'],
      ['matt ivan'],
      ['kachasan'],
      ['tawnie graham'],
      ['shannon epstein'],
      ['ree drummondpublished aug 6 2012', 'ree drummond published aug 6 2012'],
    ]);
  });

  test('sentences, images, list tabs and labels of other things are no bylines', () => {
    const text = [
      'By the time the cake cools, the glaze has set.',
      'By submitting this form you agree.',
      '![author Heidi Swanson](https://img.test/heidi.jpg)',
      "Author's Notes for the cake",
      '-   Author',
      '-   Recent Posts',
    ].join('\n');
    assert.deepEqual(pageBylines(text), []);
  });

  test('an author the bylines do not name goes to the model; one they name is answered', () => {
    const html = post({ author: person('Plum Bakes') });
    assert.deepEqual(author(html, '# Plum Cake\nPlum Bakes\n**Author:** Matt Ivan').answered, []);
    assert.deepEqual(author(html, '# Plum Cake\nBy Plum Bakes · May 2024').data, { author: 'Plum Bakes' });
    // Related posts by others do not count against an author the page's own byline names.
    const related = '# Plum Cake\nBy Plum Bakes\n## More cakes\nBy Ann Lee\nBy Bo Chen';
    assert.deepEqual(author(html, related).data, { author: 'Plum Bakes' });
    assert.deepEqual(author(html, '# Plum Cake\nBy Ree DrummondPublished Aug 6\nPlum Bakes').answered, []);
    const ree = post({ author: person('Ree Drummond') });
    assert.deepEqual(author(ree, '# Plum Cake\nBy Ree DrummondPublished Aug 6\n\nRee Drummond').data, {
      author: 'Ree Drummond',
    });
  });
});

describe('authors the page does not show as its byline', () => {
  test('a name only in running text goes to the model; alone on a line or in a byline element it is answered', () => {
    const html = post({ author: person('Ann Lee') });
    const adapted = '# Plum Cake\nThis cake is adapted from Ann Lee, who bakes it every June.\nMix and bake.';
    assert.deepEqual(author(html, adapted).answered, []);
    assert.deepEqual(author(html, '# Plum Cake\nAnn Lee\nMix and bake.').data, { author: 'Ann Lee' });
    const marked = page(
      ld({
        '@context': 'https://schema.org',
        '@type': 'Recipe',
        name: 'Plum Cake',
        author: person('Ann Lee'),
      }),
      '<span class="entry-author">Ann Lee</span>',
    );
    assert.deepEqual(author(marked, adapted).data, { author: 'Ann Lee' });
  });
});

describe('authors who are the site or its staff', () => {
  test('a site that is a person ("Person, Organization") names its author, not the site', () => {
    const owner = { '@type': ['Person', 'Organization'], '@id': '#owner', name: 'Lisa Kerhin' };
    const html = post({ author: { '@id': '#owner' }, publisher: { '@id': '#owner' } }, [owner]);
    assert.deepEqual(author(html, '# Plum Cake\nLisa Kerhin').data, { author: 'Lisa Kerhin' });
    const published = post({ author: person('Lisa Kerhin'), publisher: person('Lisa Kerhin') });
    assert.deepEqual(author(published, '# Plum Cake\nLisa Kerhin').data, { author: 'Lisa Kerhin' });
    const company = post({
      author: person('Plum Press'),
      publisher: { '@type': 'Organization', name: 'Plum Press' },
    });
    assert.deepEqual(author(company, '# Plum Cake\nPlum Press').answered, []);
  });

  test('the site\'s name with "&" for "and" is still the site', () => {
    const html = post(
      { author: person('Cookies & Cups') },
      [],
      '<meta property="og:url" content="https://cookiesandcups.test/pie">',
    );
    assert.deepEqual(author(html, '# Plum Cake\nCookies & Cups').answered, []);
  });

  test("a site's staff names no person", () => {
    for (const name of ['Redazione', 'Food Republic Staff', 'Editorial Team', 'admin']) {
      const html = post({ author: person(name) });
      assert.deepEqual(author(html, `# Plum Cake\n${name}`).answered, [], name);
    }
    const html = post({ author: person('Stafford Teamer') });
    assert.deepEqual(author(html, '# Plum Cake\nStafford Teamer').data, { author: 'Stafford Teamer' });
  });
});

describe('descriptions', () => {
  const described = (html: string, text: string) => answer({ description: 'string' }, html, text);

  test('a description the page shows only as a heading, with no sentence in it, is a title', () => {
    const html = post({ description: 'Spiced Plum Cake' });
    assert.deepEqual(described(html, '# Plum Cake\n## Spiced Plum Cake\nMix and bake.').answered, []);
    const sentence = post({ description: 'A soft cake with plums.' });
    assert.deepEqual(described(sentence, '# Plum Cake\n## A soft cake with plums.').data, {
      description: 'A soft cake with plums.',
    });
  });

  test('a description only in the meta tags must be a whole paragraph of the page', () => {
    const html = post({}, [], '<meta name="description" content="Dinner is on the table quick smart.">');
    const cut = '# Plum Cake\nDinner is on the table quick smart. I skip browning the plums.';
    assert.deepEqual(described(html, cut).answered, []);
    assert.deepEqual(described(html, '# Plum Cake\nDinner is on the table quick smart.\nMix.').data, {
      description: 'Dinner is on the table quick smart.',
    });
  });

  test('a description the page shows only inside a longer paragraph goes to the model', () => {
    const html = post({ description: 'A soft cake with plums.' });
    const longer = '# Plum Cake\nA soft cake with plums. It keeps for three days in a tin.\nMix and bake.';
    assert.deepEqual(described(html, longer).answered, []);
    assert.deepEqual(described(html, '# Plum Cake\nA soft cake with plums.\nMix and bake.').data, {
      description: 'A soft cake with plums.',
    });
  });

  test("the site's tagline or a description naming a web address goes to the model", () => {
    const tagline = 'Simple cakes for every day.';
    const html = post({ description: tagline }, [
      { '@type': 'Organization', name: 'Plum Kitchen', description: tagline },
    ]);
    assert.deepEqual(described(html, `# Plum Cake\n${tagline}`).answered, []);
    const promo = 'A soft plum cake. More recipes on www.plumkitchen.test';
    assert.deepEqual(described(post({ description: promo }), `# Plum Cake\n${promo}`).answered, []);
  });
});
