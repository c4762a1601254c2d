// What a structured value must be, besides shown on the page, to answer without a model. Each rule answers a
// way structured data is wrong on real pages while the page still shows the value somewhere:
// - a title only in the OpenGraph/meta tags must be one of the page's headings (the page's title is not the
//   recipe's or product's name on a blog post or a collection); a title ending in a separator and the site's
//   name or the word "recipe" carries the site's wording ("Arretjescake – Recept", "Gingerbread - zenbelly");
// - an author is a person the page's first byline names (or, without bylines, a line of its own near the
//   headline) and its entities agree on: not only in the meta tags (a user name), not the site itself nor a
//   name holding the site's name or a web address, not an agency, desk, team or company, not written in
//   capitals or with a ® (a label), no other article, page or recipe entity of the page names someone else,
//   and where the author meta tags name people, each names only the answer's;
// - a published date falls on the day the publication-date meta tags and every article, page or recipe entity
//   of the page state, where they state one;
// - a brand is not the shop's own name (a shop system's default "vendor");
// - a description is one paragraph: not the title again, not several paragraphs or notes run together, not
//   one beside another paragraph of the page that the meta description states.
import { bylineNames, credited, namedWith } from './bylines.js';
import { anotherDay } from './dates.js';
import type { FieldRule } from './field-rules.js';
import type { PageEvidence } from './page-evidence.js';
import { headlineWindow, lineTokens, sameAmounts } from './page-lines.js';
import { isSiteName, mentionsSite, STAFF, WEB_NAME } from './site-names.js';
import { plainText, SPACELESS, tokenText } from './text.js';

export interface Setting {
  page: PageEvidence;
  /** The site's names, compacted (site-names.ts). */
  site: Set<string>;
  /** The syntax the value was read from. */
  source: string;
  /** The subject entity's name. */
  subjectName?: unknown;
  /** The value names an item of a listing (a list of objects), not the page's subject. */
  inList?: boolean;
  /** Every author the page's article, page and recipe entities name, as tokens. */
  authors: Set<string>;
  /** The people each author meta tag names, as tokens, one list a tag (site-names.ts metaBylines). */
  metaAuthors: string[][];
  /** The publication dates the page's meta tags and its article, page and recipe entities state. */
  published: unknown[];
  /** The site's descriptions of itself, as tokens. */
  taglines: Set<string>;
  /** The page's meta description (og:description, else description). */
  metaDescription?: unknown;
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
      return !isSiteName(at.site, value);
    default:
      if (rule.kind === 'date' && !rule.updates) return !at.published.some((d) => anotherDay(value, d));
      return rule.whole ? paragraph(value, at) : true;
  }
}

function people(names: string[], at: Setting): boolean {
  const ours = new Set(names.map(tokenText));
  const { bylines, marked } = at.page;
  // A byline (its author elements' too) must start with the first author and name each other author: a
  // co-author named only by another byline (a related post's, an editor's element) is not this page's. A page
  // without a byline label may show the name alone on a line under the headline; a name shown only in
  // running text, a comment or a recipe's notes is not the page's byline.
  const own = [...bylines, ...marked].filter((b) => bylineNames([b], names[0] ?? '', true));
  // The page's first byline is the header's (later ones may be related posts'): where it names someone else,
  // the byline a reader sees first disagrees, whatever a later byline or an author element says.
  const first = bylines.length === 0 || bylineNames(bylines.slice(0, 1), names[0] ?? '', true);
  const bylined = first && own.length > 0 && names.slice(1).every((n) => bylineNames(own, n, false));
  const shown = bylined || (bylines.length === 0 && names.every((n) => nameLine(at.page, n)));
  // A line listing the first author with others ("By Ann Lee and Bo Chen") must list no one else.
  const lines = [at.page.text, ...at.page.authorLabels].join('\n');
  const others = names[0] === undefined ? [] : namedWith(lines, names[0]);
  // An editor, reviewer or contributor ("Contributions from Bo Chen") the structured data lists as an author.
  const credits = [at.page.tokens, ...at.page.authorLabels.map(tokenText)];
  return (
    at.source !== 'meta' &&
    shown &&
    names.every((n) => person(n, at.site)) &&
    !names.some(isOrganisation) &&
    [...at.authors].every((a) => ours.has(a)) &&
    others.every((n) => ours.has(tokenText(n))) &&
    !names.some((n) => credited(credits, n)) &&
    metaAgrees(ours, at.metaAuthors)
  );
}

/**
 * Where the page's author meta tags name people, each of them names no one but the answer's people: a
 * structured author a tag contradicts (another writer, a co-author the tag lists beside them, the editor of
 * the page's template) is the model's call, even where another tag agrees. A tag naming an organisation
 * ("author" = the publisher, beside "article:author" = the writer) states no person.
 */
function metaAgrees(ours: Set<string>, tags: string[][]): boolean {
  const people = tags.filter((names) => !names.some(isOrganisation));
  return people.every((names) => names.every((n) => ours.has(n)));
}

/**
 * A name of an organisation, alone or credited beside a reporter ("The Associated Press", "Reuters", "CNN
 * Newsroom", "Acme Media Group", "Press Trust of India"): a byline of an agency, a company or an institution
 * is not a person's, so who wrote the page is the model's call.
 */
const isOrganisation = (name: string) =>
  /^the\s/i.test(name.trim()) ||
  /(?<![\p{L}\p{N}])(?:press|news|newsroom|wire|wires|reuters|agency|agencies|afp|ap|dpa|upi|pti|ians|ansa|xinhua|syndicate|inc|llc|ltd|gmbh|corp|corporation|company|group|media|magazine|network|institute|university|college|association|foundation|society|council|department|ministry|service|services)(?![\p{L}\p{N}])/iu.test(
    name,
  );

/** The lines around the headline where a byline without a label stands (as a dateline's, dates.ts). */
const NAME_LINES = { before: 3, after: 12 } as const;

/**
 * Whether a line around the headline is the name alone (a byline without a label: "Ann Lee" under the
 * headline); the name alone far from it is an "about me" box's, a comment's or a recipe card's note.
 */
const nameLine = (page: PageEvidence, name: string) => {
  const tokens = sameAmounts(tokenText(name));
  const { lines } = headlineWindow(page.text, page.headings, NAME_LINES.before, NAME_LINES.after);
  return tokens !== '' && lines.some((l) => lineTokens(l) === tokens);
};

/** An ellipsis at the end: a title cut short for a teaser ("… at the..."). */
const CUT_SHORT = /(?:…|\.\.\.)\s*$/;

function title(value: string, at: Setting): boolean {
  const suffix = value.match(SUFFIX)?.[1]?.trim();
  if (suffix && (RECIPE_WORD.test(suffix) || isSiteName(at.site, suffix))) return false;
  if (isSiteName(at.site, value) || CUT_SHORT.test(value)) return false;
  const tokens = sameAmounts(tokenText(value));
  const headings = [...at.page.lineList.filter((l) => l.heading).map((l) => l.tokens), ...at.page.headings];
  // The page's own heading, whole: an SEO headline, a title with the site's wording or one shown only as the
  // start of a longer heading (without its subtitle) is not what a reader sees as the title. A listing's
  // items are named in its list, not by headings: theirs must only not be the start of a longer heading.
  if (at.inList) return !headings.some((h) => h.startsWith(`${tokens} `)) && at.source !== 'meta';
  return headings.includes(tokens);
}

/** One name holding several ("Ann Lee and Bo Chen, Financial Times") or credentials ("Ann Lee MS, RDN"). */
const SEVERAL = /[,;&]|\s(?:and|und|et)\s/i;

function person(name: string, site: Set<string>): boolean {
  if (isSiteName(site, name) || mentionsSite(site, name) || WEB_NAME.test(name)) return false;
  if (/[®™©]/.test(name) || STAFF.test(name) || SEVERAL.test(name)) return false;
  const letters = name.replace(/[^\p{L}]/gu, '');
  if (!SPACELESS.test(name) && letters.length > 1 && letters === letters.toUpperCase()) return false;
  return true;
}

/**
 * The page's meta description shown as a paragraph of its own and not the answer: the page offers two
 * summaries, and which one is its description is the model's call.
 */
function rivalSummary(tokens: string, at: Setting): boolean {
  if (typeof at.metaDescription !== 'string') return false;
  const summary = sameAmounts(tokenText(plainText(at.metaDescription)));
  return (
    summary !== '' && summary !== sameAmounts(tokens) && at.page.lineList.some((l) => l.tokens === summary)
  );
}

/** Sentences glued across a lost paragraph break: "… meal!White, flaky …". */
const GLUED = /\p{Ll}[.!?]\p{Lu}/u;

/** A web address in running text: the site promoting itself ("Mehr Rezepte auf www.example.de"). */
const WEB_ADDRESS = /\bhttps?:\/\/|\bwww\.[\p{L}\p{N}-]+\./iu;

function paragraph(value: string, at: Setting): boolean {
  if (value.includes('\n') || GLUED.test(value) || WEB_ADDRESS.test(value)) return false;
  const tokens = tokenText(value);
  if (typeof at.subjectName === 'string' && tokenText(at.subjectName) === tokens) return false;
  if (at.taglines.has(tokens)) return false;
  if (rivalSummary(tokens, at)) return false;
  const lines = at.page.lineList.filter((l) => l.tokens === sameAmounts(tokens));
  if (lines.length > 0 && lines.every((l) => l.heading) && !/[.!?。！？]/.test(value)) return false;
  // One of the page's paragraphs, whole: a snippet, a summary written for search engines or a text the page
  // shows only inside a longer paragraph is not the page's description.
  return lines.length > 0;
}
