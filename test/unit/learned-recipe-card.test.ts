// Learned extractors on a recipe card whose look-alike elements share their first class (written by hand
// after the markup of a common WordPress recipe plugin): each time is a `wprm-recipe-details` span told apart
// only by a later class, and a recipe without a total time has no total-time block at all. The extractor
// must answer "no total time" there without the model, and never read the cook time beside it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

interface Card {
  title: string;
  prep: number;
  cook: number;
  total: number | null;
}

const CARDS: Card[] = [
  { title: 'Lemon Bars', prep: 20, cook: 25, total: 45 },
  { title: 'Pea Soup', prep: 10, cook: 30, total: 40 },
  { title: 'Fig Jam', prep: 15, cook: 60, total: 75 },
  { title: 'Corn Bread', prep: 5, cook: 20, total: null },
  { title: 'Rye Loaf', prep: 30, cook: 50, total: 80 },
  { title: 'Plum Cake', prep: 25, cook: 40, total: null },
];

function time(kind: string, label: string, minutes: number | null): string {
  if (minutes === null) return '';
  return `<div class="wprm-recipe-block-container wprm-recipe-${kind}-time-container">
    <span class="wprm-recipe-details-label">${label}: </span><span class="wprm-recipe-time"><span
    class="wprm-recipe-details wprm-recipe-${kind}_time">${minutes}</span> <span
    class="wprm-recipe-details-unit">minutes</span></span></div>`;
}

function page(c: Card, wrapped = false): string {
  const times = `${time('prep', 'Prep Time', c.prep)}${time('cook', 'Cook Time', c.cook)}${time('total', 'Total Time', c.total)}`;
  return `<html><body><header><a href="/">Blog</a></header><article><h1>${c.title}</h1>
    <div class="wprm-recipe-container"><div class="wprm-recipe"><h2 class="wprm-recipe-name">${c.title}</h2>
    <div class="wprm-recipe-times-container">${wrapped ? `<div>${times}</div>` : times}</div></div></div>
    </article><footer>©</footer></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://blog.test/recipe/lemon-bars' });
const FIELDS =
  learnableFields(normalizeSchema({ title: 'string', cook_time: 'number', total_time: 'number' }).fields) ??
  [];
const answer = (c: Card) => ({ title: c.title, cook_time: c.cook, total_time: c.total });

function learn(cards: Card[]): FieldCandidates {
  let known: FieldCandidates | null = null;
  for (const c of cards) known = learnFromAnswer(at(page(c)), FIELDS, answer(c), known);
  return known ?? {};
}

describe('learned extractors on a recipe card of look-alike times', () => {
  // Learned on three cards with a total time and one without (the model said "none" there).
  const [a, b, c, none, e, other] = CARDS as [Card, Card, Card, Card, Card, Card];
  const known = learn([a, b, none, c]);

  test('a card without a total time is answered "none" without the model', () => {
    const out = applyExtractor(at(page(other)), FIELDS, known);
    assert.equal(out.data.title, other.title);
    assert.equal(out.data.cook_time, other.cook);
    assert.ok('total_time' in out.data, `left to the model: ${JSON.stringify(out.unanswered)}`);
    assert.equal(out.data.total_time, null);
  });

  test('a card with a total time reads it, not the cook time beside it, wrapped or not', () => {
    for (const wrapped of [false, true]) {
      const out = applyExtractor(at(page(e, wrapped)), FIELDS, known);
      assert.ok(!('total_time' in out.data) || out.data.total_time === e.total, JSON.stringify(out.data));
    }
    assert.equal(applyExtractor(at(page(e)), FIELDS, known).data.total_time, e.total);
  });
});

/** A class-less theme's meta row: a total and a cook time, each an icon and a text; no total, no block. */
function metaRow(c: Card): string {
  const block = (minutes: number | null, words: string) =>
    minutes === null ? '' : `<div><span><svg></svg></span><span>${minutes} min ${words}</span></div>`;
  return `<html><body><main><h1>${c.title}</h1><div>${block(c.total, 'in all')}${block(c.cook, 'cooking')}</div>
    <p>Story.</p><p>More of it.</p></main></body></html>`;
}

describe('learned extractors on a class-less meta row', () => {
  const [a, b, c, , e, other] = CARDS as [Card, Card, Card, Card, Card, Card];
  const schema = learnableFields(normalizeSchema({ title: 'string', total_time: 'number' }).fields) ?? [];
  let known: FieldCandidates | null = null;
  for (const card of [a, b, c, e])
    known = learnFromAnswer(at(metaRow(card)), schema, { title: card.title, total_time: card.total }, known);

  test('without the total block, the cook time in its place is not read as the total', () => {
    const out = applyExtractor(at(metaRow(other)), schema, known ?? {});
    assert.equal(out.data.title, other.title);
    assert.notEqual(out.data.total_time, other.cook, JSON.stringify(out.data));
    assert.ok(!('total_time' in out.data), JSON.stringify(out.data));
  });

  test('with the total block, the total is read', () => {
    const out = applyExtractor(at(metaRow({ ...other, total: 65 })), schema, known ?? {});
    assert.equal(out.data.total_time, 65);
  });
});
