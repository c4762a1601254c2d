// Learned extractors on pages shaped like real recipe blogs (bench:real:learned's failures and risks, written
// by hand): a theme's header and comments around a recipe card whose lists, comments and optional fields vary
// from page to page; the template must hold across them, and a selector must never answer a neighbour's
// text — a moved node, a prep time beside the total time, a subtitle in the heading — nor "none" for a value
// that is on the page.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { structureSketch } from '../../activities/reading/learned/structure.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { SAME_TEMPLATE, similarity } from '../../shared/template-sketch.js';

interface Recipe {
  title: string;
  author: string | null;
  ingredients: string[];
  prep: number;
  total: number;
}

interface Look {
  comments?: number;
  /** The card inside one more div (a theme update, an ad slot). */
  wrapper?: boolean;
  /** The byline's link inside one more element. */
  byline?: boolean;
  subtitle?: string;
}

const RECIPES: Recipe[] = [
  {
    title: 'Lemon Bars',
    author: 'Ana Ruiz',
    ingredients: ['2 lemons', '1 cup sugar', '3 eggs'],
    prep: 20,
    total: 20,
  },
  {
    title: 'Pea Soup',
    author: null,
    ingredients: ['1 lb peas', '1 onion', '4 cups stock', 'salt'],
    prep: 15,
    total: 15,
  },
  {
    title: 'Corn Bread',
    author: 'Ana Ruiz',
    ingredients: ['1 cup cornmeal', '1 cup milk'],
    prep: 10,
    total: 10,
  },
  {
    title: 'Fig Jam',
    author: 'Bo Lind',
    ingredients: ['1 kg figs', '500 g sugar', '1 lemon'],
    prep: 30,
    total: 30,
  },
  {
    title: 'Rye Loaf',
    author: 'Bo Lind',
    ingredients: ['500 g rye', '10 g salt', '400 ml water'],
    prep: 25,
    total: 180,
  },
];

/** A recipe blog's post: class-less theme markup around the card, as many real themes write it. */
function post(r: Recipe, look: Look = {}): string {
  const comments = Array.from(
    { length: look.comments ?? 2 },
    (_, i) =>
      `<li class="comment"><div class="comment-body"><b>Reader ${i}</b><p>Made it ${i} times.</p>${
        i % 2 ? '<ul class="children"><li class="comment"><p>Thanks!</p></li></ul>' : ''
      }</div></li>`,
  ).join('');
  const card = `<div><h2>${r.title}${look.subtitle ? ` <span class="sub">${look.subtitle}</span>` : ''}</h2>
      ${r.author ? `<p>${look.byline ? `<span class="by"><a href="/about">${r.author}</a></span>` : `<a href="/about">${r.author}</a>`}</p>` : ''}
      <div><span>Prep: ${r.prep} min</span> <span>Total: ${r.total} min</span></div>
      <ul class="ingredients">${r.ingredients.map((i) => `<li>${i}</li>`).join('')}</ul></div>`;
  return `<html><head><title>${r.title}</title></head><body>
    <header><nav><ul><li><a href="/">Home</a></li><li><a href="/r">Recipes</a></li></ul></nav></header>
    <article><h1>${r.title}</h1><p>A story about it.</p>
      ${look.wrapper ? `<div>${card}</div>` : card}
    </article>
    <section id="comments"><ol class="comment-list">${comments}</ol></section>
    <footer><p>© Blog</p></footer></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://blog.test/r/1' });
const FIELDS =
  learnableFields(
    normalizeSchema({ title: 'string', author: 'string', ingredients: ['string'], total_time: 'number' })
      .fields,
  ) ?? [];
const answer = (r: Recipe) => ({
  title: r.title,
  author: r.author,
  ingredients: r.ingredients,
  total_time: r.total,
});

function learn(pages: [Recipe, Look][]): FieldCandidates {
  let known: FieldCandidates | null = null;
  for (const [r, look] of pages) known = learnFromAnswer(at(post(r, look)), FIELDS, answer(r), known);
  return known ?? {};
}

describe('learned extractors on recipe-blog pages', () => {
  test('posts of one theme share a template whatever their comments, list lengths, wrapper and subtitle', () => {
    const [a, b, , d] = RECIPES as [Recipe, Recipe, Recipe, Recipe];
    const base = structureSketch(load(post(a, { comments: 2 })));
    for (const [r, look] of [
      [b, { comments: 0 }],
      [d, { comments: 40 }],
      [b, { comments: 7, wrapper: true }],
      [d, { comments: 3, subtitle: 'make-ahead' }],
    ] as [Recipe, Look][]) {
      const s = similarity(base, structureSketch(load(post(r, look))));
      assert.ok(s >= SAME_TEMPLATE, `${JSON.stringify(look)}: ${s}`);
    }
  });

  test('a node moved by a wrapper is not answered as absent, even where the field was seen absent', () => {
    const [a, b, c, d] = RECIPES as [Recipe, Recipe, Recipe, Recipe];
    // Learned on posts with and without an author (so "no node" was seen to mean "none").
    const known = learn([
      [a, {}],
      [b, {}],
      [c, { comments: 5 }],
    ]);
    for (const look of [{ wrapper: true }, { byline: true }]) {
      const out = applyExtractor(at(post(d, look)), FIELDS, known);
      for (const [field, value] of Object.entries(out.data))
        assert.deepEqual(
          value,
          answer(d)[field as keyof ReturnType<typeof answer>],
          `${field} ${JSON.stringify(look)}`,
        );
      assert.ok(!('author' in out.data), JSON.stringify(out.data));
    }
    // The byline moved alone: the card's other values are still answered.
    assert.equal(applyExtractor(at(post(d, { byline: true })), FIELDS, known).data.title, d.title);
  });

  test('a total time learned where it equalled the prep time is never read from the prep time', () => {
    const [a, , c, d, e] = RECIPES as [Recipe, Recipe, Recipe, Recipe, Recipe];
    const known = learn([
      [a, {}],
      [c, {}],
      [d, {}],
    ]);
    const out = applyExtractor(at(post(e, {})), FIELDS, known);
    assert.notEqual(out.data.total_time, e.prep);
    assert.ok(!('total_time' in out.data) || out.data.total_time === e.total, JSON.stringify(out.data));
  });

  test('a subtitle in the heading: the title is read without it or left to the model', () => {
    const [a, b, c, d] = RECIPES as [Recipe, Recipe, Recipe, Recipe];
    const known = learn([
      [a, {}],
      [b, {}],
      [c, {}],
    ]);
    const out = applyExtractor(at(post(d, { subtitle: 'make-ahead' })), FIELDS, known);

    assert.ok(!('title' in out.data) || out.data.title === d.title, JSON.stringify(out.data));
    // The card's other values are still answered.
    assert.deepEqual(out.data.ingredients, d.ingredients);
  });
});
