// Values structured data states and the page confirms in another form are answered without a model: a total
// time the page shows only as its parts, a yield in another language's word or as a range, amounts spelled
// as fractions or with a decimal comma, ingredients with the amount after the name, a photo an image element
// shows before its lazy loader fills it in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LABEL_LIMITS } from '../../activities/reading/structured-data/page-labels.js';
import { sameAmounts } from '../../activities/reading/structured-data/page-lines.js';
import { answer, ld, page, read } from '../support/structured-pages.js';

const recipe = (props: Record<string, unknown>) =>
  page(ld({ '@context': 'https://schema.org', '@type': 'Recipe', name: 'Plum Cake', ...props }), '');

describe('a total time shown as its parts', () => {
  const times = { totalTime: 'PT40M', prepTime: 'PT20M', cookTime: 'PT20M' };

  test('prep and cook shown under their labels add up to the total: answered', () => {
    const card = '# Plum Cake\nPrep Time: 20 mins\nCook Time: 20 mins\nServes 8';
    assert.deepEqual(answer({ total_time: 'string' }, recipe(times), card).data, {
      total_time: '40 minutes',
    });
    assert.deepEqual(answer({ total_time: 'number' }, recipe(times), card).data, { total_time: 40 });
  });

  test('parts that do not add up, a part not shown, or another total on the page go to the model', () => {
    const card = '# Plum Cake\nPrep Time: 20 mins\nCook Time: 20 mins';
    const off = recipe({ ...times, cookTime: 'PT25M' });
    assert.deepEqual(
      answer({ total_time: 'string' }, off, card.replace('Cook Time: 20', 'Cook Time: 25')).answered,
      [],
    );
    assert.deepEqual(
      answer({ total_time: 'string' }, recipe(times), '# Plum Cake\nPrep Time: 20 mins').answered,
      [],
    );
    const other = `${card}\nTotal Time: 1 hour`;
    assert.deepEqual(answer({ total_time: 'string' }, recipe(times), other).answered, []);
  });
});

describe('yields', () => {
  test("a yield word of the page's language, before or after the number", () => {
    const yields = (recipeYield: string, text: string) =>
      answer({ yields: 'string' }, recipe({ recipeYield }), `# Plum Cake\n${text}`).data;
    assert.deepEqual(yields('4', 'Ingredientes para 4 personas'), { yields: '4' });
    assert.deepEqual(yields('4', 'Durée 1 h 15 · Parts 4 pers'), { yields: '4' });
    assert.deepEqual(yields('6', '6 adag · 90 perc'), { yields: '6' });
    assert.deepEqual(yields('2', 'Broj porcija 2'), { yields: '2' });
    assert.deepEqual(yields('4', 'Bake at 4 degrees'), {});
  });

  test('a range shown with a word between its ends', () => {
    const html = recipe({ recipeYield: '3 to 4 servings' });
    assert.deepEqual(answer({ yields: 'string' }, html, '# Plum Cake\nServings: 3 to 4').data, {
      yields: '3 to 4 servings',
    });
    const dashed = recipe({ recipeYield: '6-8' });
    assert.deepEqual(answer({ yields: 'string' }, dashed, '# Plum Cake\nServes 6 bis 8').data, {
      yields: '6-8',
    });
  });
});

describe('ingredient amounts and order', () => {
  test('amounts in one spelling: fractions, a whole number and a fraction, decimal commas', () => {
    assert.equal(sameAmounts('1/4 cup oil'), '0.25 cup oil');
    assert.equal(sameAmounts('2 1/2 dl water'), '2.5 dl water');
    assert.equal(sameAmounts('2,5 dl water'), '2.5 dl water');
    assert.equal(sameAmounts('1,000 g flour 3/2 cups'), '1,000 g flour 1.5 cups');
    assert.equal(sameAmounts('5 1/0 x'), '5 1/0 x');
  });

  test('a decimal amount the page shows as a fraction, or with a comma', () => {
    const html = recipe({ recipeIngredient: ['0.25 cup olive oil', '2.5 dl water'] });
    const card = '# Plum Cake\n## Ingredients\n- ¼ cup olive oil\n- 2,5 dl water';
    assert.deepEqual(answer({ ingredients: ['string'] }, html, card).data, {
      ingredients: ['0.25 cup olive oil', '2.5 dl water'],
    });
    const other = '# Plum Cake\n## Ingredients\n- ⅓ cup olive oil\n- 2,5 dl water';
    assert.deepEqual(answer({ ingredients: ['string'] }, html, other).answered, []);
  });

  test('ingredients the page shows with the amount after the name, in the same order', () => {
    const html = recipe({ recipeIngredient: ['200 g farine', '3 œufs'] });
    const card = '# Plum Cake\n## Ingrédients\n- Farine 200 g\n- Œufs 3';
    assert.deepEqual(answer({ ingredients: ['string'] }, html, card).data, {
      ingredients: ['200 g farine', '3 œufs'],
    });
    const missing = '# Plum Cake\n## Ingrédients\n- Farine 200 g\n- Œufs 3 (gros)';
    assert.deepEqual(answer({ ingredients: ['string'] }, html, missing).answered, []);
  });
});

describe('images', () => {
  const photo = 'https://blog.test/wp-content/uploads/plum-cake.jpg';
  const withBody = (body: string) =>
    page(ld({ '@context': 'https://schema.org', '@type': 'Recipe', name: 'Plum Cake', image: photo }), body);

  test("a photo the page's image elements show, lazy-loaded or in a srcset, is shown", () => {
    const lazy = withBody(`<img src="data:image/gif;base64,R0lGOD" data-lazy-src="${photo}">`);
    assert.deepEqual(answer({ image: 'string' }, lazy, '# Plum Cake').data, { image: photo });
    const srcset = withBody(
      `<picture><source srcset="${photo.replace('.jpg', '-600x400.jpg')} 600w, ${photo} 1200w"><img alt=""></picture>`,
    );
    assert.deepEqual(answer({ image: 'string' }, srcset, '# Plum Cake').data, { image: photo });
  });

  test('image files read are bounded', () => {
    const imgs = Array.from({ length: 400 }, (_, i) => `<img src="https://blog.test/p${i}.jpg">`).join('');
    const long = `<img srcset="${'https://blog.test/x.jpg 1w,'.repeat(5_000)}">`;
    const item = read(withBody(long + imgs)).find((i) => i.source === 'page');
    const files = item?.props.images as string[];
    assert.equal(files.length, LABEL_LIMITS.imageFiles);
    assert.ok(files.includes('blog.test/x.jpg') && files.includes('blog.test/p0.jpg'));
  });

  test('an image element showing another photo confirms nothing', () => {
    const other = withBody('<img data-src="https://blog.test/wp-content/uploads/plum-tart.jpg">');
    assert.deepEqual(answer({ image: 'string' }, other, '# Plum Cake').answered, []);
  });
});
