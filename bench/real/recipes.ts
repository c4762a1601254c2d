// The recipe corpus of bench:real: the recipe-scrapers project's test pages (MIT),
// `tests/test_data/<site>/<name>.testhtml` with the expected values in `<name>.json`.
import { type Expected, firstDifference, present, same } from './compare.js';
import type { BenchPage, Corpus, PageFilter } from './corpus.js';
import { plainRecipe } from './plain-reader.js';
import { EXPECTED, FIELDS, RECIPE_DATA, recipePages, TYPED_SCHEMA, urlOf } from './recipe-pages.js';

/** Each page with the expected values of the bench's fields (the pages as bench:real:learned reads them). */
function* pages(root: string, filter: PageFilter): Generator<BenchPage> {
  for (const { page, split, html, expected: data } of recipePages(root, filter)) {
    const expected = Object.fromEntries(
      FIELDS.map((f) => [f, data[EXPECTED[f] as string]]).filter(([, v]) => present(v)),
    );
    yield { page, split, html, url: urlOf(data), expected };
  }
}

export const recipes: Corpus = {
  heading: 'Recipe pages: the recipe-scrapers test data (MIT)',
  archive: RECIPE_DATA,
  fields: FIELDS,
  variants: {
    strings: Object.fromEntries(FIELDS.map((f) => [f, [f, 'string']])),
    typed: Object.fromEntries(FIELDS.map((f) => [f, [f, TYPED_SCHEMA[f as keyof typeof TYPED_SCHEMA]]])),
  },
  pages,
  plain: plainRecipe,
  same: (field, got, expected) => same(field, got, expected as Expected),
  differs: firstDifference,
};
