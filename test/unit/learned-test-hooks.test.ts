// A shop's recipe pages built with CSS modules: every class is generated (`recipe-header-time_timeLine__nn84w`,
// not taken as a name), so a node is named only by the hook the site's own tests find it by
// (`data-testhook="header-time"`). A page without a total time has no time block at all: the extractor must
// answer "no total time" there without the model, which it can only do for a selector that names its node.
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
  summary: string;
  minutes: number | null;
}

const RECIPES: Recipe[] = [
  { title: 'Vegan pasta salad', summary: 'With olives and sun-dried tomatoes.', minutes: 20 },
  { title: 'Pea soup', summary: 'Fresh peas, mint and a little cream.', minutes: 35 },
  { title: 'Fig jam', summary: 'Ripe figs cooked down with lemon.', minutes: 75 },
  { title: 'Corn bread', summary: 'A skillet bread of coarse cornmeal.', minutes: null },
  { title: 'Rye loaf', summary: 'A dense loaf of dark rye and seeds.', minutes: 80 },
  { title: 'Plum cake', summary: 'Halved plums sunk into a butter cake.', minutes: null },
];

function page(r: Recipe): string {
  const time =
    r.minutes === null
      ? ''
      : `<div class="recipe-header-time_timeLine__nn84w" data-testhook="header-time"><p><span>${r.minutes} min. bereiden</span></p></div>`;
  return `<html><body><div class="layout_root__Xk2p9"><main><div class="recipe-header_main__TX5F0">
    <h1 class="typography_root__Om3Wh" data-testhook="header-title">${r.title}</h1>
    <p class="typography_root__Om3Wh" data-testhook="header-subtitle">${r.summary}</p>
    <div class="recipe-header_details__aB3dE">${time}<div class="recipe-header-rating_root__IkT1Z"><p><span>4 sterren</span></p></div></div>
    </div></main></div></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://shop.test/recept/r-123/pasta' });
const FIELDS =
  learnableFields(normalizeSchema({ title: 'string', description: 'string', total_time: 'number' }).fields) ??
  [];

describe('a node named only by a test hook', () => {
  let known: FieldCandidates | null = null;
  for (const r of RECIPES.slice(0, 4))
    known = learnFromAnswer(
      at(page(r)),
      FIELDS,
      { title: r.title, description: r.summary, total_time: r.minutes },
      known,
    );

  test('is learned by its hook', () => {
    assert.ok(
      (known?.total_time ?? []).some((c) => c.selector.startsWith('div[data-testhook="header-time"] ')),
      JSON.stringify(known?.total_time?.map((c) => c.selector)),
    );
  });

  test('a page with the time reads it', () => {
    const r = RECIPES[4] as Recipe;
    const out = applyExtractor(at(page(r)), FIELDS, known ?? {});
    assert.equal(out.data.title, r.title);
    assert.equal(out.data.total_time, r.minutes);
  });

  test('a page without one is answered "no total time" without the model', () => {
    const out = applyExtractor(at(page(RECIPES[5] as Recipe)), FIELDS, known ?? {});
    assert.ok('total_time' in out.data, `unanswered: ${out.unanswered.join(', ')}`);
    assert.equal(out.data.total_time, null);
  });
});
