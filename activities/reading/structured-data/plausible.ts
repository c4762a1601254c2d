// What a structured value must be, besides shown on the page, to answer without a model. Each rule answers a
// way structured data is wrong on real pages while the page still shows the value somewhere:
// - a title only in the OpenGraph/meta tags must be one of the page's headings (the page's title is not the
//   recipe's or product's name on a blog post or a collection); a title ending in a separator and the site's
//   name or the word "recipe" carries the site's wording ("Arretjescake – Recept", "Gingerbread - zenbelly");
// - an author is a person the page's entities agree on: not only in the meta tags (a user name), not the site
//   itself, not written in capitals or with a ® (a label), and no other article, page or recipe entity of the
//   page names someone else;
// - a brand is not the shop's own name (a shop system's default "vendor");
// - a description is one paragraph: not the title again, not several paragraphs or notes run together.
import type { FieldRule } from './field-rules.js';
import type { PageEvidence } from './page-evidence.js';
import { compact } from './site-names.js';
import { SPACELESS, tokenText } from './text.js';

export interface Setting {
  page: PageEvidence;
  /** The site's names, compacted (site-names.ts). */
  site: Set<string>;
  /** The syntax the value was read from. */
  source: string;
  /** The subject entity's name. */
  subjectName?: unknown;
  /** Every author the page's article, page and recipe entities name, as tokens. */
  authors: Set<string>;
}

const RECIPE_WORD = /^(?:recipe|recipes|recept|rezept|receta|ricetta|recette|receita|oppskrift|opskrift)$/i;
const SUFFIX = /\s[-–—|:·]\s*([^-–—|:·]+)$/;

export function plausible(rule: FieldRule, value: unknown, at: Setting): boolean {
  if (rule.check === 'person' && Array.isArray(value)) return people(value.map(String), at);
  if (typeof value !== 'string') return true;
  switch (rule.check) {
    case 'title':
      return title(value, at);
    case 'person':
      return people(value.split(', '), at);
    case 'maker':
      return !at.site.has(compact(value));
    default:
      return rule.whole ? paragraph(value, at.subjectName) : true;
  }
}

function people(names: string[], at: Setting): boolean {
  const ours = new Set(names.map(tokenText));
  return (
    at.source !== 'meta' &&
    names.every((n) => person(n, at.site)) &&
    [...at.authors].every((a) => ours.has(a))
  );
}

function title(value: string, at: Setting): boolean {
  const suffix = value.match(SUFFIX)?.[1]?.trim();
  if (suffix && (RECIPE_WORD.test(suffix) || at.site.has(compact(suffix)))) return false;
  const tokens = tokenText(value);
  return at.source !== 'meta' || at.page.lineList.some((l) => l.heading && l.tokens === tokens);
}

function person(name: string, site: Set<string>): boolean {
  if (site.has(compact(name)) || /[®™©]/.test(name)) return false;
  const letters = name.replace(/[^\p{L}]/gu, '');
  if (!SPACELESS.test(name) && letters.length > 1 && letters === letters.toUpperCase()) return false;
  return true;
}

/** Sentences glued across a lost paragraph break: "… meal!White, flaky …". */
const GLUED = /\p{Ll}[.!?]\p{Lu}/u;

function paragraph(value: string, subjectName: unknown): boolean {
  if (value.includes('\n') || GLUED.test(value)) return false;
  return typeof subjectName !== 'string' || tokenText(subjectName) !== tokenText(value);
}
