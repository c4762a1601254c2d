// A list whose first item wraps its text in a link: a magazine's ingredient list links its first line to
// another recipe ("<li><a>1/2 cup stewed beans</a></li><li>1 teaspoon oil</li>…"). The deepest node showing
// the first line was the link, whose selectors read one line only, so no candidate read the list and every
// page went to the model for it. The item around the link is a match too: the list is learnt from the items.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

const LISTS = [
  ['1/2 cup stewed black beans, warmed', '1 teaspoon olive oil', '1/2 cup grape tomatoes'],
  ['2 cups cooked rice', '1 tablespoon soy sauce', '2 eggs', '1 green onion, sliced'],
  ['1 pound halibut fillets', 'Salt and pepper', '1 lemon'],
  ['4 slices sourdough bread', '2 tablespoons butter'],
  ['1 cup flour', '1 cup milk', '2 eggs', 'a pinch of salt', '1 tablespoon sugar'],
];

/** A recipe page: its ingredients, the first linked when `linked`, and a related-recipes list of links. */
function page(lines: string[], linked = true): string {
  const items = lines.map((l, i) =>
    i === 0 && linked ? `<li><a href="/recipes/other">${l}</a></li>` : `<li>${l}</li>`,
  );
  return `<html><body><main><h1>A recipe</h1>
    <div class="recipe-ingredients"><h2>Ingredients</h2><div class="ingredients"><ul>${items.join('')}</ul></div></div>
    <div class="related"><ul><li><a href="/recipes/a">Bean salad</a></li><li><a href="/recipes/b">Rice bowl</a></li></ul></div>
  </main></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://magazine.test/recipes/bowl' });
const FIELDS = learnableFields(normalizeSchema({ ingredients: ['string'] }).fields) ?? [];

describe('a list whose first item is a link', () => {
  let known: FieldCandidates | null = null;
  for (const lines of LISTS.slice(0, 3))
    known = learnFromAnswer(at(page(lines)), FIELDS, { ingredients: lines }, known);

  test('the list is learnt from its items', () => {
    assert.ok((known?.ingredients ?? []).length > 0, 'no candidate reads the list');
  });

  test('a later page of the template answers its whole list', () => {
    const lines = LISTS[3] as string[];
    const out = applyExtractor(at(page(lines)), FIELDS, known ?? {});
    assert.deepEqual(out.data.ingredients, lines);
  });

  test('the related recipes are never read as ingredients', () => {
    const lines = LISTS[4] as string[];
    const out = applyExtractor(at(page(lines)), FIELDS, known ?? {});
    assert.deepEqual(out.data.ingredients, lines);
    const read = JSON.stringify(out.data.ingredients ?? null);
    assert.ok(!read.includes('Bean salad'), read);
  });
});
