// Recipe and article pages answered without a model: ingredient and instruction lists shown line by line,
// ISO 8601 durations shown in words, yields, authors behind @id references, dates in other spellings.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answer, ld, page } from '../support/structured-pages.js';

/** A Yoast-style graph: the post, its author as a reference, and a WP Recipe Maker recipe. */
const recipePage = (recipe: Record<string, unknown>) =>
  page(
    ld({
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'Article',
          headline: 'The Best Pumpkin Bread (So Easy!)',
          author: { '@id': 'https://blog.test/#/schema/person/1' },
          datePublished: '2024-03-15T08:00:00+00:00',
        },
        { '@type': 'Person', '@id': 'https://blog.test/#/schema/person/1', name: 'Heidi Swanson' },
        { '@type': 'WebSite', name: 'Heidi Bakes' },
        {
          '@type': 'Recipe',
          name: 'Pumpkin Bread',
          author: { '@id': 'https://blog.test/#/schema/person/1' },
          recipeIngredient: ['1 &frac12; cups flour', '2 eggs', '1 cup pumpkin pur&eacute;e'],
          ...recipe,
        },
      ],
    }),
    '',
  );

const CARD = [
  '# The Best Pumpkin Bread (So Easy!)',
  'By Heidi Swanson · March 15, 2024',
  '## Pumpkin Bread',
  'Prep Time 15 mins Cook Time 1 hour hr 15 minutes mins Total Time 1 hour hr 30 minutes mins',
  'Servings: 8 slices',
  '### Ingredients',
  '- 1 ½ cups flour',
  '- 2 eggs',
  '- 1 cup pumpkin purée',
  '### Instructions',
  '#### For the batter',
  '1. Whisk the flour and the eggs.',
  '2. Fold in the pumpkin.',
  '#### To bake',
  '3. Bake for 1 hour 15 minutes.',
].join('\n');

const STEPS = [
  {
    '@type': 'HowToSection',
    name: 'For the batter',
    itemListElement: [
      { '@type': 'HowToStep', text: 'Whisk the flour and the eggs.' },
      { '@type': 'HowToStep', name: 'Fold', text: 'Fold in the pumpkin.' },
    ],
  },
  {
    '@type': 'HowToSection',
    name: 'To bake',
    itemListElement: [{ '@type': 'HowToStep', text: 'Bake for 1 hour 15 minutes.' }],
  },
];

describe('recipe lists', () => {
  test('ingredients with entities decoded, each shown as a line; a string field gets one per line', () => {
    const html = recipePage({});
    assert.deepEqual(answer({ ingredients: ['string'] }, html, CARD).data, {
      ingredients: ['1 ½ cups flour', '2 eggs', '1 cup pumpkin purée'],
    });
    assert.deepEqual(answer({ ingredients: 'string' }, html, CARD).data, {
      ingredients: '1 ½ cups flour\n2 eggs\n1 cup pumpkin purée',
    });
  });

  test('an ingredient cut short or without its amount is not shown by the longer line: the model answers', () => {
    const cut = recipePage({ recipeIngredient: ['1 ½ cups flour', '2 eggs', '1 cup pumpkin'] });
    assert.deepEqual(answer({ ingredients: ['string'] }, cut, CARD).answered, []);
    const bare = recipePage({ recipeIngredient: ['flour', 'eggs'] });
    assert.deepEqual(answer({ ingredients: ['string'] }, bare, CARD).answered, []);
  });

  test('HowToSections give their names then their steps; a step keeps its text, not its title', () => {
    const html = recipePage({ recipeInstructions: STEPS });
    const lines = [
      'For the batter',
      'Whisk the flour and the eggs.',
      'Fold in the pumpkin.',
      'To bake',
      'Bake for 1 hour 15 minutes.',
    ];
    assert.deepEqual(answer({ instructions: ['string'] }, html, CARD).data, { instructions: lines });
    assert.deepEqual(answer({ steps: 'string' }, html, CARD).data, { steps: lines.join('\n') });
  });

  test('a list with items missing, or part of a longer list on the page, goes to the model; one under its own heading stands alone', () => {
    const titles = recipePage({
      recipeInstructions: [
        { '@type': 'HowToStep', text: 'Make the batter' },
        { '@type': 'HowToStep', text: 'Bake' },
      ],
    });
    const text = [
      'Make the batter',
      'Whisk the flour and the eggs, then fold in the pumpkin until no streaks remain.',
      'Bake',
      'Bake for 1 hour 15 minutes, until a skewer comes out clean.',
    ].join('\n');
    assert.deepEqual(answer({ instructions: ['string'] }, titles, text).answered, []);
    const side = recipePage({ recipeIngredient: ['1 cup yoghurt', '1 lemon'] });
    const longer = '### Ingredients\n- 2 eggs\n- 1 cup yoghurt\n- 1 lemon\n- 1 cup flour';
    assert.deepEqual(answer({ ingredients: ['string'] }, side, longer).answered, []);
    const sauce = '### Ingredients\n- 2 eggs\n- 1 cup flour\n\n### For the sauce\n- 1 cup yoghurt\n- 1 lemon';
    assert.deepEqual(answer({ ingredients: ['string'] }, side, sauce).data, {
      ingredients: ['1 cup yoghurt', '1 lemon'],
    });
  });

  test('instructions as one HTML string are split at its blocks', () => {
    const html = recipePage({
      recipeInstructions: '<ol><li>Whisk the flour and the eggs.</li><li>Fold in the pumpkin.</li></ol>',
    });
    assert.deepEqual(answer({ instructions: ['string'] }, html, CARD).data, {
      instructions: ['Whisk the flour and the eggs.', 'Fold in the pumpkin.'],
    });
  });
});

describe('durations', () => {
  const html = recipePage({ prepTime: 'PT15M', cookTime: 'PT1H15M', totalTime: 'PT1H30M' });

  test('a string field gets the time spelled out; a number field minutes, or the unit its name says', () => {
    const m = answer(
      { total_time: 'string', prep_time: 'string', cook_time_minutes: 'integer', total_time_hours: 'number' },
      html,
      CARD,
    );
    assert.deepEqual(m.data, {
      total_time: '1 hour 30 minutes',
      prep_time: '15 minutes',
      cook_time_minutes: 75,
      total_time_hours: 1.5,
    });
  });

  test("a time shown under another time's label is not this time", () => {
    const text = 'Prep Time 1 hr 30 mins Cook Time 45 mins';
    assert.deepEqual(answer({ total_time: 'string' }, html, text).answered, []);
    assert.deepEqual(answer({ total_time: 'string' }, html, 'Ready in 1 hr 30 mins').data, {
      total_time: '1 hour 30 minutes',
    });
  });

  test('the minutes of a longer time are not a time: 15 minutes is not shown by "1 hour 15 minutes"', () => {
    const text = 'Prep time: 1 hour 15 minutes';
    assert.deepEqual(answer({ prep_time: 'string' }, html, text).answered, []);
  });
});

describe('yields', () => {
  test('the fullest spelling of one number, shown by the page near a yield word', () => {
    const html = recipePage({ recipeYield: ['8', '8 slices'] });
    assert.deepEqual(answer({ yields: 'string', servings: 'integer' }, html, CARD).data, {
      yields: '8 slices',
      servings: 8,
    });
    const bare = recipePage({ recipeYield: 4 });
    assert.deepEqual(answer({ yields: 'string' }, bare, 'Serves 4').data, { yields: '4' });
    assert.deepEqual(answer({ yields: 'string' }, bare, 'Bake 4 minutes').answered, []);
  });

  test('spellings of different numbers are ambiguous', () => {
    const html = recipePage({ recipeYield: ['4', '8 slices'] });
    assert.deepEqual(answer({ yields: 'string' }, html, CARD).answered, []);
  });
});

describe('people, titles and dates', () => {
  test('an author behind an @id reference; several authors joined', () => {
    assert.deepEqual(answer({ author: 'string' }, recipePage({}), CARD).data, { author: 'Heidi Swanson' });
    const two = recipePage({ author: [{ '@type': 'Person', name: 'Ann Lee' }, { name: 'Bo Chen' }] });
    assert.deepEqual(answer({ author: 'string', authors: ['string'] }, two, 'By Ann Lee and Bo Chen').data, {
      author: 'Ann Lee, Bo Chen',
      authors: ['Ann Lee', 'Bo Chen'],
    });
  });

  test('an author who is the site, a label, only in the meta tags, or not the one the post names goes to the model', () => {
    const by = (author: unknown) =>
      answer({ author: 'string' }, recipePage({ author }), `${CARD}\n${author}`);
    assert.deepEqual(by('Heidi Bakes').answered, []); // the WebSite's name
    assert.deepEqual(by('THERMOMIX ® REZEPT').answered, []);
    assert.deepEqual(by('CLAUDIA TORRENT').answered, []);
    const post = page(
      ld([
        { '@type': 'BlogPosting', headline: 'Pie', author: { '@type': 'Person', name: 'Shelly Jaronsky' } },
        { '@type': 'Recipe', name: 'Pie', author: { '@type': 'Person', name: 'Cookies and Cups' } },
      ]),
      '',
    );
    assert.deepEqual(
      answer({ author: 'string' }, post, 'Pie by Shelly Jaronsky. Cookies and Cups').answered,
      [],
    );
    const meta = page('<meta name="author" content="Rutger">', '');
    assert.deepEqual(answer({ author: 'string' }, meta, '# Banketstaaf\nDoor Rutger').answered, []);
  });

  test("a title with the site's name or the word recipe after a separator goes to the model", () => {
    const titled = (name: string) => answer({ title: 'string' }, recipePage({ name }), `# ${name}`);
    assert.deepEqual(titled('Arretjescake – Recept').answered, []);
    assert.deepEqual(titled('Gingerbread - Heidi Bakes').answered, []);
    assert.deepEqual(titled('Lemon Tart: The Easy Way').data, { title: 'Lemon Tart: The Easy Way' });
  });

  test('a description of several paragraphs, or run together across one, goes to the model', () => {
    const described = (description: string, text = description) =>
      answer({ description: 'string' }, recipePage({ description }), text);
    assert.deepEqual(described('Quick and easy.\nTIP: use canned pumpkin.').answered, []);
    assert.deepEqual(described('The perfect one dish meal!White and flaky.').answered, []);
    assert.deepEqual(described('Moist and easy.').data, { description: 'Moist and easy.' });
  });

  test("a blog post's recipe is the subject when the schema asks for a recipe; the post's when it asks for an article", () => {
    const html = recipePage({});
    assert.deepEqual(
      answer({ title: 'string', ingredients: ['string'] }, html, CARD).data.title,
      'Pumpkin Bread',
    );
    assert.deepEqual(answer({ headline: 'string', date_published: 'string' }, html, CARD).data, {
      headline: 'The Best Pumpkin Bread (So Easy!)',
      date_published: '2024-03-15T08:00:00+00:00',
    });
  });

  test('a round-up of several recipes: their titles disagree and go to the model', () => {
    const html = page(
      ld([
        { '@type': 'Recipe', name: 'Pumpkin Bread', recipeIngredient: ['2 eggs'] },
        { '@type': 'Recipe', name: 'Banana Bread', recipeIngredient: ['2 eggs'] },
      ]),
      '',
    );
    const m = answer(
      { title: 'string', ingredients: ['string'] },
      html,
      '# Pumpkin Bread\n- 2 eggs\n# Banana Bread',
    );
    assert.deepEqual(m.data, { ingredients: ['2 eggs'] });
  });

  test('dates shown in other spellings; a day-month order that reads both ways is not enough', () => {
    const on = (date: string, text: string) =>
      answer(
        { date_published: 'string' },
        page(ld({ '@type': 'NewsArticle', datePublished: date }), ''),
        text,
      ).data;
    assert.deepEqual(on('2024-03-05', 'Published March 5th, 2024'), { date_published: '2024-03-05' });
    assert.deepEqual(on('2024-03-05T23:10:00-05:00', 'Veröffentlicht am 5. März 2024'), {
      date_published: '2024-03-05T23:10:00-05:00',
    });
    assert.deepEqual(on('2024-03-05', 'Publié le 5 mars 2024'), { date_published: '2024-03-05' });
    assert.deepEqual(on('2024-03-15', 'Posted 15/03/2024'), { date_published: '2024-03-15' });
    assert.deepEqual(on('2024-03-05', 'Posted 05/03/2024'), {});
    assert.deepEqual(on('2024-03-05', 'Posted March 6, 2024'), {});
  });

  test('a description cut short is no description', () => {
    const said = (description: string) => page(ld({ '@type': 'Recipe', name: 'Pie', description }), '');
    const text =
      'Fondant potatoes are a French side dish where you cut potatoes into rounds and cook them slowly.';
    const cut = 'Fondant potatoes are a French side dish where you cut potatoes';
    assert.deepEqual(answer({ description: 'string' }, said(`${cut} […]`), text).answered, []);
    assert.deepEqual(answer({ description: 'string' }, said(cut), text).answered, []);
    assert.deepEqual(answer({ description: 'string' }, said(text), `${text}\nMore below.`).data, {
      description: text,
    });
  });

  test('HTML in a description is taken off; a title without a letter is no title', () => {
    const html = page(
      '<meta property="og:title" content="2">',
      ld({ '@type': 'Recipe', name: 'Pie', description: 'Mom&#8217;s <b>best</b> pie &amp; more' }),
    );
    assert.deepEqual(answer({ description: 'string' }, html, 'Mom’s best pie & more').data, {
      description: 'Mom’s best pie & more',
    });
    const og = page('<meta property="og:title" content="2">', '');
    assert.deepEqual(answer({ title: 'string' }, og, 'Step 2').answered, []);
  });

  test('an image shown at another size counts; several photos or a relative URL do not answer', () => {
    const photo = (image: unknown) => page(ld({ '@type': 'Recipe', name: 'Pie', image }), '');
    const text = '![Pie](https://i0.wp.com/blog.test/wp-content/uploads/pie-300x200.jpg?ssl=1)';
    const full = 'https://blog.test/wp-content/uploads/pie.jpg';
    const sizes = [full, 'https://blog.test/wp-content/uploads/pie-500x500.jpg'];
    assert.deepEqual(answer({ image: 'string' }, photo(sizes), text).data, { image: full });
    const two = photo([full, 'https://blog.test/b.jpg']);
    assert.deepEqual(answer({ image: 'string' }, two, `${text} ![B](https://blog.test/b.jpg)`).answered, []);
    assert.deepEqual(
      answer({ image: 'string' }, photo('/wp-content/uploads/pie-300x200.jpg'), text).answered,
      [],
    );
    assert.deepEqual(answer({ image: 'string' }, photo('https://blog.test/other.jpg'), text).answered, []);
  });

  test("an image the page's preview (og:image) names otherwise is the model's to choose", () => {
    const full = 'https://blog.test/wp-content/uploads/pie.jpg';
    const text = `![Pie](${full}) ![Slice](https://blog.test/slice.jpg)`;
    const html = (preview: string) =>
      page(
        `<meta property="og:image" content="${preview}">${ld({ '@type': 'Recipe', name: 'Pie', image: full })}`,
        '',
      );
    assert.deepEqual(answer({ image: 'string' }, html('https://blog.test/slice.jpg'), text).answered, []);
    assert.deepEqual(answer({ image: 'string' }, html(`${full}?w=1200`), text).data, { image: full });
  });

  test('text in scripts without spaces is matched as a whole word', () => {
    const html = page(ld({ '@type': 'Recipe', name: '焗饭' }), '');
    assert.deepEqual(answer({ title: 'string' }, html, '番茄鸡肉浓情焗饭【两人份】').answered, []);
    assert.deepEqual(answer({ title: 'string' }, html, '# 焗饭\n\n番茄').data, { title: '焗饭' });
  });
});
