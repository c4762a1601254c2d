// A text field read by its place alone (a paragraph with no class of its own) must not answer a neighbour's
// text when its own node is missing: on a recipe page without a description the next paragraph, a labelled
// detail ("Difficulty: medium"), moves into the description's place. It goes to the model instead.
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
  description: string | null;
  difficulty: string;
}

const RECIPES: Recipe[] = [
  {
    title: 'Apple tart',
    description: 'A crisp tart of thin apple slices on puff pastry.',
    difficulty: 'easy',
  },
  {
    title: 'Beef stew',
    description: 'Slow-cooked beef with carrots, onions and red wine.',
    difficulty: 'medium',
  },
  {
    title: 'Fish pie',
    description: 'Smoked haddock and prawns under a crust of mashed potato.',
    difficulty: 'medium',
  },
  {
    title: 'Leek soup',
    description: 'A velvety soup of leeks and potatoes, finished with cream.',
    difficulty: 'easy',
  },
  { title: 'Duck confit', description: null, difficulty: 'hard' },
];

function page(r: Recipe): string {
  const description = r.description === null ? '' : `<p>${r.description}</p>`;
  return `<html><body><header><a href="/">Recipes</a></header><main><h1>${r.title}</h1>
    <div class="intro">${description}<p>Difficulty: ${r.difficulty}</p><p>Serves four people.</p></div>
    </main><footer>Footer</footer></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://recipes.test/recipe/apple-tart' });
const FIELDS = learnableFields(normalizeSchema({ title: 'string', description: 'string' }).fields) ?? [];

function learn(recipes: Recipe[]): FieldCandidates {
  let known: FieldCandidates | null = null;
  for (const r of recipes)
    known = learnFromAnswer(at(page(r)), FIELDS, { title: r.title, description: r.description }, known);
  return known ?? {};
}

describe('a text field read by its place', () => {
  const [a, b, c, d, none] = RECIPES as [Recipe, Recipe, Recipe, Recipe, Recipe];
  const known = learn([a, b, c]);

  test('a page with its description reads it', () => {
    const out = applyExtractor(at(page(d)), FIELDS, known);
    assert.equal(out.data.title, d.title);
    assert.equal(out.data.description, d.description);
  });

  test('a page without one leaves it to the model, never the labelled detail moved into its place', () => {
    const out = applyExtractor(at(page(none)), FIELDS, known);
    assert.equal(out.data.title, none.title);
    assert.ok(!('description' in out.data), `answered ${JSON.stringify(out.data.description)}`);
    assert.ok(out.unanswered.includes('description'));
  });
});

// A recipe's byline and its reviewer are spans of one meta block, each a label and a link alike: on a page
// without an author, the reviewer's span moves into the author's place, and a selector that names only
// that place reads the reviewer's name, made up as an author's link. The words that introduce the link
// ("By" against "Reviewed by") tell them apart.
interface Byline {
  title: string;
  author: string | null;
  reviewer: string;
}

const BYLINES: Byline[] = [
  { title: 'Apple tart', author: 'Alana Scott', reviewer: 'Joanna Baker' },
  { title: 'Beef stew', author: 'Alana Scott', reviewer: 'Anna Sloan' },
  { title: 'Fish pie', author: 'Tom Berg', reviewer: 'Joanna Baker' },
  { title: 'Leek soup', author: 'Mei Chen', reviewer: 'Anna Sloan' },
  { title: 'Pea risotto', author: 'Ravi Patel', reviewer: 'Joanna Baker' },
  { title: 'Duck confit', author: null, reviewer: 'Joanna Baker' },
];

function bylinePage(b: Byline): string {
  const by = b.author === null ? '' : `<span>By <a class="highlight" href="/about">${b.author}</a></span>`;
  return `<html><body><main><h1 class="title">${b.title}</h1><div class="meta">
    <span>Prep in <span class="highlight">10 min</span></span>${by}
    <span>Reviewed by <a class="highlight" href="/team">${b.reviewer}</a></span></div></main></body></html>`;
}

describe('a byline read by its place', () => {
  const fields = learnableFields(normalizeSchema({ title: 'string', author: 'string' }).fields) ?? [];
  let known: FieldCandidates | null = null;
  for (const b of BYLINES.slice(0, 4))
    known = learnFromAnswer(at(bylinePage(b)), fields, { title: b.title, author: b.author }, known);

  test('is learned by its place only', () => {
    const author = known?.author ?? [];
    assert.ok(author.length > 0);
    for (const c of author) assert.match(c.selector, /:nth-of-type\(/);
  });

  test('reads the author of a page it was not learned from', () => {
    const b = BYLINES[4] as Byline;
    assert.equal(applyExtractor(at(bylinePage(b)), fields, known ?? {}).data.author, b.author);
  });

  test('a page without one leaves it to the model, never the reviewer moved into its place', () => {
    const out = applyExtractor(at(bylinePage(BYLINES[5] as Byline)), fields, known ?? {});
    assert.ok(!('author' in out.data), `answered ${JSON.stringify(out.data.author)}`);
    assert.ok(out.unanswered.includes('author'));
  });
});
