// Pages of one real template, made from a real page the way its site serves its other pages: lists of other
// lengths (items repeated or dropped; a recipe's own lists lose their last lines, and its expected values with
// them), comment and review blocks of other lengths or none, an extra wrapper around the recipe's block, one
// optional field missing, a subtitle inside the title's heading (the title is still the title alone).
// Deterministic per page and variant number.
import { type Cheerio, type CheerioAPI, load } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { words } from './compare.js';

export interface PageVariant {
  html: string;
  /** The expected values of the variant (the page's, less what it dropped). */
  expected: Record<string, unknown>;
  /** What was changed: lists, comments, wrapper, missing:<field>, subtitle. */
  changes: string[];
}

/** mulberry32 over a string's hash: the variant's choices. */
function random(seed: string): () => number {
  let a = 0;
  for (let i = 0; i < seed.length; i++) a = Math.imul(a ^ seed.charCodeAt(i), 0x9e3779b1) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SKIP = 'script, style, noscript, template, svg';
const text = ($: CheerioAPI, el: AnyNode) => words($(el).text());

/** The deepest elements whose text (as compared) is `value`. */
function nodesOf($: CheerioAPI, value: string): Element[] {
  const want = words(value);
  if (!want) return [];
  const hits = $('body *')
    .not(SKIP)
    .toArray()
    .filter((el) => text($, el) === want) as Element[];
  return hits.filter((el) => !hits.some((other) => other !== el && $(el).find(other).length > 0));
}

export function variantOf(
  html: string,
  expected: Record<string, unknown>,
  n: number,
  seed: string,
): PageVariant {
  const $ = load(html);
  const rnd = random(`${seed}#${n}`);
  const out = { ...expected };
  const changes: string[] = [];
  if (rnd() < 0.7 && lists($, out, rnd)) changes.push('lists');
  if (rnd() < 0.6 && comments($, out, rnd)) changes.push('comments');
  if (rnd() < 0.3 && wrapper($, out)) changes.push('wrapper');
  if (rnd() < 0.25) {
    const gone = missing($, out, rnd);
    if (gone) changes.push(`missing:${gone}`);
  }
  if (rnd() < 0.25 && subtitle($, out)) changes.push('subtitle');
  return { html: $.html(), expected: out, changes };
}

/** Whether an item's text (as compared) holds a line whole, as words. */
const holds = (item: string, line: string) => line !== '' && ` ${item} `.includes(` ${line} `);

const lines = (v: unknown) => (Array.isArray(v) ? v.map((l) => words(String(l))) : []);

/**
 * The ul/ol lists: a list of the recipe's own lines (ingredients, steps; items that hold them) loses its last
 * 1–2 lines when it is their end (so do the expected values), or stays; any other list has items repeated or
 * dropped.
 */
function lists($: CheerioAPI, expected: Record<string, unknown>, rnd: () => number): boolean {
  let changed = false;
  // The page's values of one line as compared, a total time as its number.
  const shown = ['title', 'author', 'description', 'total_time', 'yields'].flatMap((key) => {
    const v = expected[key];
    return (typeof v === 'string' || typeof v === 'number') && words(String(v))
      ? [` ${words(String(v))} `]
      : [];
  });
  const own = {
    ingredients: lines(expected.ingredients),
    instructions_list: lines(expected.instructions_list),
  };
  /** Lines a field's lists lost (every copy of the list loses the same). */
  const dropped: Partial<Record<keyof typeof own, number>> = {};
  for (const list of $('body ul, body ol').toArray().slice(0, 60)) {
    const items = $(list).children('li').toArray();
    if (items.length < 2) continue;
    const texts = items.map((li) => text($, li));
    // An item holds its line, maybe with more: a step's number, a checkbox's label, an ingredient's picture
    // caption. A list of them is the recipe's too, never one to repeat or cut while the values stay.
    const field = (Object.keys(own) as (keyof typeof own)[]).find((f) =>
      texts.some((t) => own[f].some((line) => holds(t, line))),
    );
    if (field) {
      // Only a list that is the end of the field's lines, in order, can lose them cleanly. A page may show
      // the list twice (a desktop column and a mobile tab): each copy loses the same lines, and the expected
      // values lose them once.
      const all = own[field];
      const at = all.length - texts.length;
      if (at < 0 || texts.some((t, i) => !holds(t, all[at + i] ?? '')) || all.length < 3) continue;
      const drop = dropped[field] ?? Math.min(1 + Math.floor(rnd() * 2), all.length - 2, items.length - 1);
      if (drop >= items.length) continue;
      for (const li of items.slice(-drop)) $(li).remove();
      if (dropped[field] === undefined) {
        dropped[field] = drop;
        expected[field] = (expected[field] as unknown[]).slice(0, -drop);
      }
      changed = true;
      continue;
    }
    if (rnd() < 0.5) continue;
    // A recipe card's details (yield, times, author) are a list too: a site shows them all on every page,
    // and one dropped here would leave the page without a value it is still expected to show.
    if (texts.some((t) => shown.some((v) => ` ${t} `.includes(v)))) continue;
    if (rnd() < 0.5) for (const li of items.slice(1 + Math.floor(rnd() * (items.length - 1)))) $(li).remove();
    else for (const li of items.slice(0, 1 + Math.floor(rnd() * 3))) $(list).append($(li).clone());
    changed = true;
  }
  return changed;
}

/** Comment and review blocks: their repeated items repeated, cut down, or all gone. */
function comments($: CheerioAPI, expected: Record<string, unknown>, rnd: () => number): boolean {
  const title = words(String(expected.title ?? ''));
  const firstStep = lines(expected.instructions_list)[0] ?? '';
  let changed = false;
  const blocks = $(
    'body [class*="comment"], body [id*="comment"], body [class*="review"], body [id*="review"]',
  );
  for (const block of blocks.toArray().slice(0, 40)) {
    const kids = $(block).children().not(SKIP).toArray() as Element[];
    const label = (el: Element) => `${el.tagName}.${(el.attribs.class ?? '').split(/\s+/)[0]}`;
    const first = kids[0];
    if (!first || kids.length < 2 || !kids.every((k) => label(k) === label(first))) continue;
    const all = text($, block);
    if ((title && all.includes(title)) || (firstStep && all.includes(firstStep))) continue;
    const r = rnd();
    if (r < 0.3) for (const k of kids) $(k).remove();
    else if (r < 0.6) for (const k of kids.slice(1)) $(k).remove();
    else for (const k of kids.slice(0, 3)) $(block).append($(k).clone());
    changed = true;
  }
  return changed;
}

/** The title's block (two levels above its heading) inside one more div. */
function wrapper($: CheerioAPI, expected: Record<string, unknown>): boolean {
  const heading = nodesOf($, String(expected.title ?? ''))[0];
  let block: Cheerio<AnyNode> = heading ? $(heading).parent().parent() : $();
  if (!block.length || block.is('body, html')) block = $('body').children().not(SKIP).first();
  if (!block.length || block.is('body, html')) return false;
  block.wrap('<div class="layout-extra"></div>');
  return true;
}

/** One optional field's nodes (text or meta) removed, when nothing else on the page says it. */
function missing($: CheerioAPI, expected: Record<string, unknown>, rnd: () => number): string | null {
  const optional = ['description', 'author', 'yields'].filter((f) => typeof expected[f] === 'string');
  const field = optional[Math.floor(rnd() * optional.length)];
  if (!field) return null;
  const value = expected[field] as string;
  const nodes = nodesOf($, value);
  const metas = $('meta')
    .toArray()
    .filter((m) => words($(m).attr('content') ?? '') === words(value));
  if (nodes.length === 0) return null;
  // Only when no other visible text says it: tried on a copy of the body first.
  for (const el of nodes) $(el).attr('data-variant-gone', '');
  const visible = $('body').clone();
  visible.find(`${SKIP}, [data-variant-gone]`).remove();
  $('[data-variant-gone]').removeAttr('data-variant-gone');
  if (words(visible.text()).includes(words(value))) return null;
  for (const el of [...nodes, ...metas]) $(el).remove();
  expected[field] = null;
  return field;
}

/** A subtitle inside the element whose text is the title (the expected title stays without it). */
function subtitle($: CheerioAPI, expected: Record<string, unknown>): boolean {
  const heading = nodesOf($, String(expected.title ?? ''))[0];
  if (!heading) return false;
  $(heading).append(' <span class="subtitle">a weeknight favourite</span>');
  return true;
}
