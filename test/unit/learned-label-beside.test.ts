// A number read by its place alone, whose label stands beside it in an element of its own (a theme's times
// row: `<div><div class="rt-label">Prep Time</div><div class="rt-value">10 mins</div></div>` for each time,
// the values told apart only by their place). On a recipe without a prep time its block is gone and the cook
// time's block moves into its place, reading alike ("0 mins"): the label beside it is another, so the prep
// time goes to the model instead of being answered with the cook time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

interface Times {
  title: string;
  prep: number | null;
  cook: number;
  total: number;
}

const RECIPES: Times[] = [
  { title: 'Lemon Bars', prep: 20, cook: 25, total: 45 },
  { title: 'Pea Soup', prep: 10, cook: 30, total: 40 },
  { title: 'Fig Jam', prep: 15, cook: 60, total: 75 },
  { title: 'Rye Loaf', prep: 30, cook: 50, total: 80 },
];

function page(r: Times): string {
  const time = (label: string, minutes: number | null) =>
    minutes === null
      ? ''
      : `<div><div class="rt-label">${label}</div><div class="rt-value">${minutes} mins</div></div>`;
  return `<html><body><main><h1>${r.title}</h1><div class="recipetimes">${time('Prep Time', r.prep)}
    ${time('Cook Time', r.cook)}${time('Total Time', r.total)}</div><p>Story.</p></main></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://blog.test/recipe/lemon-bars' });
const FIELDS = learnableFields(normalizeSchema({ title: 'string', prep_time: 'number' }).fields) ?? [];

describe('a number read by its place, with its label beside it', () => {
  let known: FieldCandidates | null = null;
  for (const r of RECIPES)
    known = learnFromAnswer(at(page(r)), FIELDS, { title: r.title, prep_time: r.prep }, known);

  test('it is read by its place alone (the values share their class)', () => {
    const selectors = (known?.prep_time ?? []).map((c) => c.selector);
    assert.ok(selectors.length > 0);
    assert.ok(
      selectors.every((s) => s.includes(':nth-of-type(')),
      selectors.join(' ; '),
    );
  });

  test('a recipe with a prep time reads it', () => {
    const out = applyExtractor(
      at(page({ title: 'Plum Cake', prep: 25, cook: 40, total: 65 })),
      FIELDS,
      known ?? {},
    );
    assert.equal(out.data.prep_time, 25);
  });

  test('without the prep block, the cook time moved into its place is not read as the prep time', () => {
    const out = applyExtractor(
      at(page({ title: 'Corn Bread', prep: null, cook: 0, total: 0 })),
      FIELDS,
      known ?? {},
    );
    assert.equal(out.data.title, 'Corn Bread');
    assert.ok(!('prep_time' in out.data), JSON.stringify(out.data));
    assert.ok(out.unanswered.includes('prep_time'));
  });
});
