// The recipe corpus of bench:real: the recipe-scrapers project's test pages (MIT),
// `tests/test_data/<site>/<name>.testhtml` with the expected values in `<name>.json`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Expected, firstDifference, present, same } from './compare.js';
import type { BenchPage, Corpus, PageFilter } from './corpus.js';
import { plainRecipe } from './plain-reader.js';
import { splitOf } from './split.js';

/** Bench field → the expected value's key in the test data. */
const EXPECTED: Record<string, string> = {
  title: 'title',
  author: 'author',
  ingredients: 'ingredients',
  instructions: 'instructions_list',
  description: 'description',
  image: 'image',
  total_time: 'total_time',
  yields: 'yields',
};
const FIELDS = Object.keys(EXPECTED);

/** What a user would write: every field a string; and the same fields typed. */
const TYPED: Record<string, unknown> = {
  ingredients: ['string'],
  instructions: ['string'],
  total_time: 'number',
};

function* pages(root: string, filter: PageFilter): Generator<BenchPage> {
  const dir = join(root, 'tests', 'test_data');
  for (const site of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!site.isDirectory()) continue; // a stray page without its expected values
    if (filter.sites?.length && !filter.sites.includes(site.name)) continue;
    const split = splitOf(site.name);
    if (filter.split && filter.split !== split) continue;
    const folder = join(dir, site.name);
    for (const file of readdirSync(folder).sort()) {
      if (!file.endsWith('.testhtml')) continue;
      const json = join(folder, file.replace(/\.testhtml$/, '.json'));
      if (!existsSync(json)) continue;
      const data = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
      const expected = Object.fromEntries(
        FIELDS.map((f) => [f, data[EXPECTED[f] as string]]).filter(([, v]) => present(v)),
      );
      const url = typeof data.canonical_url === 'string' ? data.canonical_url : 'https://example.com/';
      yield {
        page: `${site.name}/${file}`,
        split,
        html: readFileSync(join(folder, file), 'utf8'),
        url,
        expected,
      };
    }
  }
}

export const recipes: Corpus = {
  heading: 'Recipe pages: the recipe-scrapers test data (MIT)',
  archive: '/work/shared/data/recipe-pages.tar.xz',
  fields: FIELDS,
  variants: {
    strings: Object.fromEntries(FIELDS.map((f) => [f, [f, 'string']])),
    typed: Object.fromEntries(FIELDS.map((f) => [f, [f, TYPED[f] ?? 'string']])),
  },
  pages,
  plain: plainRecipe,
  same: (field, got, expected) => same(field, got, expected as Expected),
  differs: firstDifference,
};
