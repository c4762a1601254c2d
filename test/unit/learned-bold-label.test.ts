// A text read whole by its place alone (a page builder's headings, no class to name them): the yield
// "Makes 12 pieces" in the first h4, then "<strong>Prep time =</strong> 10 mins" in the next. On a recipe
// without a yield its heading is gone and the prep time's moves into its place: its bold label says it is
// another field, so the yield goes to the model instead of being answered with the prep time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

interface Recipe {
  title: string;
  yields: string | null;
  prep: number;
}

const RECIPES: Recipe[] = [
  { title: 'Zucchini Slice', yields: 'Makes 12 pieces', prep: 10 },
  { title: 'Pumpkin Soup', yields: 'Serves 4', prep: 15 },
  { title: 'Banana Bread', yields: 'Makes 1 loaf', prep: 20 },
  { title: 'Lamb Curry', yields: 'Serves 6', prep: 25 },
];

const block = (inner: string) => `<div class="text-column"><div class="wrapper">${inner}</div></div>`;

function page(r: Recipe): string {
  return `<html><body><main><div class="column">${block(`<h2>${r.title}</h2>`)}
    ${r.yields === null ? '' : block(`<h4>${r.yields}</h4>`)}
    ${block(`<h4><strong>Prep time =</strong> ${r.prep} mins</h4>`)}
    ${block('<h4><strong>Cooking time =</strong> 35 mins</h4>')}
    ${block('<p>The story of the dish.</p>')}</div></main></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://cook.test/recipes/zucchini-slice' });
const FIELDS = learnableFields(normalizeSchema({ title: 'string', yields: 'string' }).fields) ?? [];

describe('a text read by its place, where the next block starts with a bold label', () => {
  let known: FieldCandidates | null = null;
  for (const r of RECIPES)
    known = learnFromAnswer(at(page(r)), FIELDS, { title: r.title, yields: r.yields }, known);

  test('the yield is read by its place alone', () => {
    const selectors = (known?.yields ?? []).map((c) => c.selector);
    assert.ok(selectors.length > 0);
    assert.ok(
      selectors.every((s) => s.includes(':nth-of-type(')),
      selectors.join(' ; '),
    );
  });

  test('a recipe with a yield reads it', () => {
    const out = applyExtractor(
      at(page({ title: 'Fish Pie', yields: 'Serves 8', prep: 30 })),
      FIELDS,
      known ?? {},
    );
    assert.equal(out.data.yields, 'Serves 8');
  });

  test('without the yield, the prep time moved into its place is not read as the yield', () => {
    const out = applyExtractor(at(page({ title: 'Fish Pie', yields: null, prep: 30 })), FIELDS, known ?? {});
    assert.equal(out.data.title, 'Fish Pie');
    assert.ok(!('yields' in out.data), JSON.stringify(out.data));
  });
});
