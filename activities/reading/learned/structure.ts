// A page's template, as structure: the set of `tag.class` features of its body (each element's label, and
// its parent's label with it), sketched by MinHash (shared/template-sketch.ts). A set, not a sequence: a list
// of 3 or 30 items, reviews or none, a block present or absent change a few features, not the whole (as a
// hash of the tree did, which gave every real page a template of its own). An extra wrapper changes only the
// pairs across it. Inside a repeated item only its own children count, so long lists of unalike items (reviews
// with or without a photo, a reply) weigh little against the page's own blocks.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { hash32, sketchOf } from '../../../shared/template-sketch.js';
import { FORMATTING, isElement, MAX_ELEMENTS, SKIPPED } from './values.js';

/** How deep the body is read. */
const MAX_DEPTH = 40;
/** Distinct features kept at most: a page of many generated classes stops adding after this. */
const MAX_FEATURES = 4_000;

/** Classes that look written by hand, not generated per page or per build (as selectors use them). */
export function stableClasses(el: Element): string[] {
  const cls = el.attribs.class;
  if (!cls) return [];
  return cls
    .split(/\s+/)
    .filter((c) => /^[A-Za-z_][\w-]{0,40}$/.test(c) && !/\d{3,}/.test(c) && !/__?[a-z0-9]{5,}$/i.test(c))
    .slice(0, 4);
}

/** tag.firstClass: later classes are mostly state (in-stock, active). */
const labelOf = (el: Element) => {
  const first = stableClasses(el)[0];
  return first ? `${el.tagName}.${first}` : el.tagName;
};

/** The page's structural features, hashed. */
export function structureFeatures($: CheerioAPI): Set<number> {
  const out = new Set<number>();
  let budget = MAX_ELEMENTS;
  const walk = (el: Element, label: string, depth: number, inItem: boolean) => {
    const kids: Element[] = [];
    // Text formatting says nothing about a template.
    for (const child of el.children)
      if (isElement(child) && !SKIPPED.has(child.tagName) && !FORMATTING.has(child.tagName)) kids.push(child);
    const seen = new Map<string, number>();
    const labels = kids.map((k) => labelOf(k));
    for (const l of labels) seen.set(l, (seen.get(l) ?? 0) + 1);
    for (const [i, kid] of kids.entries()) {
      if (--budget <= 0 || out.size >= MAX_FEATURES) return;
      const own = labels[i] as string;
      out.add(hash32(own));
      out.add(hash32(`${label}>${own}`));
      // A repeated item's children count; what lies deeper in it does not.
      const repeated = (seen.get(own) ?? 0) >= 2;
      if (depth < MAX_DEPTH && !inItem) walk(kid, own, depth + 1, repeated);
    }
  };
  const body = $('body').get(0);
  if (body) walk(body, 'body', 0, false);
  return out;
}

/** The page's structure sketch: what its template is matched by. */
export const structureSketch = ($: CheerioAPI): string => sketchOf(structureFeatures($));
