// Words before a colon that are part of the value, not a label of its node: a text read inside fixed words
// by its place alone (a print line with no class of its own: "Printed from Jane Doe: https://…"), and the
// steps of a list read by their place ("Make the dough: …"). They differ on every page, so they must not make
// the node's make-up, or no page but those learned from would be answered. (A single text read whole by its
// place keeps its label: learned-moved-text.test.ts.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

const RECIPES = [
  { title: 'Apple tart', author: 'Jane Doe' },
  { title: 'Beef stew', author: 'Ravi Patel' },
  { title: 'Fish pie', author: 'Ana Lima' },
  { title: 'Leek soup', author: 'Tom Berg' },
  { title: 'Duck confit', author: 'Mei Chen' },
];

function page(r: { title: string; author: string }): string {
  return `<html><body><header><a href="/">Recipes</a></header><main><h1>${r.title}</h1>
    <div class="print"><p>Serves four people.</p><p>Printed from ${r.author}: https://recipes.test/print</p></div>
    </main><footer>Footer</footer></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://recipes.test/recipe/apple-tart' });
const FIELDS = learnableFields(normalizeSchema({ title: 'string', author: 'string' }).fields) ?? [];

describe('a text read inside fixed words by its place', () => {
  let known: FieldCandidates | null = null;
  for (const r of RECIPES.slice(0, 4)) known = learnFromAnswer(at(page(r)), FIELDS, r, known);

  test('is learned as a place and its fixed words', () => {
    const author = known?.author ?? [];
    assert.ok(author.length > 0);
    for (const c of author) {
      assert.match(c.selector, /:nth-of-type\(/);
      assert.deepEqual(c.transform, {
        kind: 'affix',
        prefix: 'Printed from ',
        suffix: ': https://recipes.test/print',
      });
    }
  });

  test('answers the author of a page it was not learned from', () => {
    const last = RECIPES[4] as { title: string; author: string };
    const out = applyExtractor(at(page(last)), FIELDS, known ?? {});
    assert.equal(out.data.title, last.title);
    assert.equal(out.data.author, last.author);
  });

  test('does not answer where the fixed words are gone (another line moved into the place)', () => {
    const moved = page({ title: 'Duck confit', author: 'Mei Chen' }).replace(
      /<p>Printed from [^<]*<\/p>/,
      '<p>Difficulty: hard</p>',
    );
    const out = applyExtractor(at(moved), FIELDS, known ?? {});
    assert.ok(!('author' in out.data), `answered ${JSON.stringify(out.data.author)}`);
  });
});

const DISHES = [
  {
    title: 'Apple tart',
    steps: ['Make the dough: rub the butter into the flour.', 'Bake: 40 minutes at 180 °C.'],
  },
  { title: 'Beef stew', steps: ['Brown the beef: in two batches.', 'Simmer: three hours, covered.'] },
  { title: 'Fish pie', steps: ['Poach the fish: in the milk.', 'Top it: with the mash, then bake.'] },
  { title: 'Leek soup', steps: ['Sweat the leeks: with butter.', 'Blend: until smooth.'] },
  {
    title: 'Duck confit',
    steps: ['Salt the legs: overnight.', 'Cook slowly: in the fat.', 'Crisp: in a pan.'],
  },
];

// WordPress recipe cards write each step's text in a span inside the step's div: read by its place.
function card(d: { title: string; steps: string[] }): string {
  const steps = d.steps.map((s) => `<li><div class="step-text"><span>${s}</span></div></li>`).join('');
  return `<html><body><main><h1>${d.title}</h1><ol>${steps}</ol></main></body></html>`;
}

const STEPS = learnableFields(normalizeSchema({ title: 'string', instructions: ['string'] }).fields) ?? [];

describe('the steps of a list read by their place', () => {
  let known: FieldCandidates | null = null;
  for (const d of DISHES.slice(0, 4))
    known = learnFromAnswer(at(card(d)), STEPS, { title: d.title, instructions: d.steps }, known);

  test('are learned by a place among others', () => {
    assert.ok((known?.instructions ?? []).some((c) => c.selector.includes(':nth-of-type(')));
  });

  test('answer the steps of a page they were not learned from', () => {
    const last = DISHES[4] as { title: string; steps: string[] };
    const out = applyExtractor(at(card(last)), STEPS, known ?? {});
    assert.deepEqual(out.data.instructions, last.steps);
  });
});

const PLAIN = [
  { title: 'Apple tart', steps: ['Rub the butter into the flour.', 'Bake for 40 minutes.'] },
  { title: 'Beef stew', steps: ['Brown the beef in two batches.', 'Simmer for three hours.'] },
  { title: 'Fish pie', steps: ['Poach the fish in the milk.', 'Top it with the mash, then bake.'] },
  { title: 'Leek soup', steps: ['Sweat the leeks with butter.', 'Blend until smooth.'] },
];

describe('a list whose items start with no label', () => {
  let known: FieldCandidates | null = null;
  for (const d of PLAIN)
    known = learnFromAnswer(at(card(d)), STEPS, { title: d.title, instructions: d.steps }, known);

  test('answers a page it was not learned from', () => {
    const next = { title: 'Duck confit', steps: ['Salt the legs overnight.', 'Cook slowly in the fat.'] };
    const out = applyExtractor(at(card(next)), STEPS, known ?? {});
    assert.deepEqual(out.data.instructions, next.steps);
  });

  test('leaves to the model a list where an item starts with a label (a note is no step)', () => {
    const next = {
      title: 'Duck confit',
      steps: ['Salt the legs overnight.', 'Cook slowly in the fat.', 'Note: the fat keeps for a month.'],
    };
    const out = applyExtractor(at(card(next)), STEPS, known ?? {});
    assert.ok(!('instructions' in out.data), `answered ${JSON.stringify(out.data.instructions)}`);
  });
});
