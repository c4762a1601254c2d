// Who the visible page says wrote it: the names after a byline label at the start of a line ("By Jenn Segal",
// "**Author:** Matt Ivan", "| Author | kachasan |", "Posted by: Jenny"), or on the line after a label that
// stands alone ("Author:"). A structured author the page's bylines do not name is not the one a reader sees
// (the site's name where the post names its writer), so it goes to the model; a byline naming the site
// itself confirms that the site is the author.
import { tokenText } from './text.js';

/** Markdown and table marks before a line's first word. */
const LEAD = /^[\s#>*_|•·©-]+/;
const LABEL =
  /^(?:((?:written|recipe|posted|created|developed)\s+by|by)|authors?|autor(?:in|a)?|auteure?|autore|författare|forfatter)(?![\p{L}\p{N}])[\s*_:|]*/iu;
/**
 * After "by", a name starts with a capital, a digit or a letter of a script without case ("By the time …" is
 * no byline); after "Author" any letter does (a user name, "kachasan").
 */
const NAME_START = /^[\p{Lu}\p{Lo}\p{N}]/u;
const ANY_START = /^[\p{L}\p{N}]/u;
/** Words of a byline kept: a name, a second name, their titles; the rest of a long line says nothing more. */
const MAX_TOKENS = 24;

/** One byline: what follows its label as tokens, in each way it may be read. */
export type Byline = string[];

/** The page's bylines. */
export function pageBylines(text: string): Byline[] {
  const lines = text.split('\n');
  const found: Byline[] = [];
  for (const [i, line] of lines.entries()) {
    if (/^\s*!\[/.test(line)) continue; // an image's alt text ("![author Heidi Swanson](…)")
    const lead = line.replace(LEAD, '');
    const label = lead.match(LABEL);
    if (!label) continue;
    let rest = lead.slice(label[0].length).replace(/^(?:authors?\s*:?\s*)/i, '');
    // "Author:" alone: the name is on the next line.
    if (rest.trim() === '' && label[0].includes(':')) rest = (lines[i + 1] ?? '').replace(LEAD, '');
    const name = rest.replace(/^[\s*_|]+/, '');
    if (!(label[1] ? NAME_START : ANY_START).test(name)) continue;
    // A name run into the next word by lost markup ("Ree DrummondPublished Aug 6") is read both ways.
    const spellings = [name, name.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')].map((n) =>
      tokenText(n).split(' ').slice(0, MAX_TOKENS).join(' '),
    );
    if (spellings[0]) found.push([...new Set(spellings)]);
  }
  return found;
}

/**
 * The bylines the page's author and byline elements give ("By Ann Lee", "Ann Lee · May 2"): their text after a
 * byline label if any, read like a text byline.
 */
export function markedBylines(texts: string[]): Byline[] {
  return texts.flatMap((text) => {
    const lead = text.replace(LEAD, '');
    const rest = lead.slice(lead.match(LABEL)?.[0].length ?? 0).replace(/^[\s*_|]+/, '');
    const spellings = [rest, rest.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')].map((n) =>
      tokenText(n).split(' ').slice(0, MAX_TOKENS).join(' '),
    );
    return spellings[0] ? [[...new Set(spellings)]] : [];
  });
}

/** Labels of people credited beside the authors: an editor, a reviewer, a contributor. */
const CREDITS = [
  'edited by',
  'reviewed by',
  'medically reviewed by',
  'fact checked by',
  'contributions from',
  'contribution from',
  'contributions by',
  'illustrated by',
  'photos by',
  'photographs by',
];

/** Whether one of these texts (as tokens) credits the name as an editor, reviewer or contributor. */
export function credited(texts: string[], name: string): boolean {
  const tokens = tokenText(name);
  return tokens !== '' && texts.some((t) => CREDITS.some((c) => t.includes(`${c} ${tokens}`)));
}

/** Whether a byline starts with this name (a list's first author) or, for a co-author, holds it. */
export function bylineNames(bylines: Byline[], name: string, first: boolean): boolean {
  const tokens = tokenText(name).replace(/^by /, '');
  if (!tokens) return false;
  const names = (b: string) => (first ? `${b} `.startsWith(`${tokens} `) : ` ${b} `.includes(` ${tokens} `));
  return bylines.some((spellings) => spellings.some(names));
}

/** Lines longer than this are running text, not a byline or a list of names. */
const LINE_CHARS = 300;
/** Between two names: a comma, "and" (in a few languages), or both ("A, B, and C"). */
const SEPARATOR = /^\s*(?:[,;]\s*)?(?:(&|\b(?:and|und|et|y|e)\b)\s*)?/iu;
/** A name: two or more capitalised words of letters ("Tom Caswell", "Anna O'Neil", "J. R. Doe"). */
const NEXT_NAME = /^\p{Lu}[\p{L}'’.-]*(?:[ \t]+\p{Lu}[\p{L}'’.-]*)+/u;

/**
 * The people a line of the page names after the first author, where it lists several: "By Chris Hayner and
 * Tom Caswell on December 21", "Starr Bowenbank, Rania Aniftos, Anna Chan" → the names after the first. One
 * item after a comma is a job title or the site ("Rob Dawson, Correspondent", "by Bob Yirka, Phys.org"),
 * not a person; a list after commas is one where two items follow, or the last follows "and". A line that
 * does not start with the name (after a byline label) is not read.
 */
export function namedWith(text: string, first: string): string[] {
  const words = tokenText(first).split(' ').filter(Boolean);
  if (words.length === 0) return [];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  const start = new RegExp(`^${escaped.join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`, 'iu');
  const found: string[] = [];
  for (const raw of text.split('\n')) {
    if (raw.length > LINE_CHARS) continue;
    const lead = raw.replace(LEAD, '');
    const line = lead.slice(lead.match(LABEL)?.[0].length ?? 0).replace(/^[\s*_|]+/, '');
    const at = line.match(start);
    if (at) found.push(...listed(line.slice(at[0].length)));
  }
  return found;
}

/** The names listed at the start of a text: ", Bo Chen and Cy Dunn on May 2" → Bo Chen, Cy Dunn. */
function listed(text: string): string[] {
  const names: string[] = [];
  let rest = text;
  let joined = false;
  for (let n = 0; n < 10; n++) {
    const sep = rest.match(SEPARATOR);
    const name = sep?.[0].trim() ? rest.slice(sep[0].length).match(NEXT_NAME) : null;
    if (!sep || !name) break;
    joined ||= sep[1] !== undefined;
    names.push(name[0]);
    rest = rest.slice(sep[0].length + name[0].length);
  }
  return joined || names.length >= 2 ? names : [];
}
