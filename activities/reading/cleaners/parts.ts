// An article set in parts: sites cut a long body into like boxes ("body-part", "article-section") with ads,
// pictures or videos between them, each box in a wrapper of its own. Readability scores each part apart and
// takes the best one with the siblings of its own wrapper, so the other parts are lost. The paragraphs of
// the page are marked before Readability runs; after it, the boxes alike to the one its pick came from
// (same tag and first class, under the same parent) that hold paragraphs it left out are the article's
// other parts. The standfirst under the headline, which Readability leaves in the page's header, is found
// here too. Linear: each walk visits an element once per level climbed, and the climbs are bounded.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { proseChars } from './prose.js';

export const PART_MARK = 'data-cleaner-paragraph';
/** Levels climbed from the pick's paragraphs to the boxes that are alike. */
const MAX_CLIMB = 6;
/** Kinds of box looked at, at most: a page of thousands of unlike boxes is no article in parts. */
const MAX_LOOKS = 64;
/** A part is text, not links (a card of a related story is mostly its headline link). */
const MAX_PART_LINK_SHARE = 0.3;
/** Never parts: a box holding the page's title or a whole other article is another story (infinite scroll). */
const NOT_PART = 'h1, article, main, [role="main"]';

/** Marks every paragraph that reads as prose with its index; returns how many. */
export function markParagraphs($: CheerioAPI): number {
  let count = 0;
  $('body')
    .find('p')
    .each((_, element) => {
      if (proseChars(element) > 0) element.attribs[PART_MARK] = String(count++);
    });
  return count;
}

const kindOf = (element: Element) =>
  `${element.name}.${(element.attribs.class ?? '').trim().split(/\s+/)[0] ?? ''}`;

const isTag = (node: AnyNode | null): node is Element => node?.type === 'tag';

export interface Parts {
  before: Element[];
  after: Element[];
}

const markOf = (element: Element) => Number(element.attribs[PART_MARK]);

/**
 * The article's parts Readability left out: `picked` are the marks of the paragraphs in its pick. From each
 * picked paragraph up to MAX_CLIMB levels, the boxes alike to the one holding it that hold paragraphs, none
 * of them picked. Empty when its pick holds no marked paragraph.
 */
export function missingParts($: CheerioAPI, picked: Set<string>): Parts {
  const inPick = $(`[${PART_MARK}]`)
    .toArray()
    .filter((element) => picked.has(element.attribs[PART_MARK]!));
  // Each parent's boxes of one kind are looked at once, and a bounded number of times in all.
  const seen = new Set<string>();
  const ids = new Map<Element, number>();
  const found: Element[] = [];
  for (const paragraph of inPick) {
    let at: Element = paragraph;
    for (let level = 0; level < MAX_CLIMB; level++) {
      const parent = at.parent;
      // Past an article or the main content are other stories, and the page's wrappers are no parts.
      if (!isTag(parent) || parent.name === 'body' || $(at).is(NOT_PART)) break;
      const kind = kindOf(at);
      if (!ids.has(parent)) ids.set(parent, ids.size);
      const key = `${ids.get(parent)} ${kind}`;
      if (seen.has(key)) break; // climbed from another paragraph already
      if (seen.size >= MAX_LOOKS) return { before: [], after: [] };
      seen.add(key);
      // Boxes without a class are alike to every other box.
      if (!kind.endsWith('.')) found.push(...likeParts($, parent, at, kind, picked));
      at = parent;
    }
  }
  const first = inPick.length > 0 ? markOf(inPick[0]!) : 0;
  const starts = new Map(found.map((part) => [part, markOf($(part).find(`[${PART_MARK}]`).get(0)!)]));
  const ordered = found.sort((a, b) => starts.get(a)! - starts.get(b)!);
  return {
    before: ordered.filter((part) => starts.get(part)! < first),
    after: ordered.filter((part) => starts.get(part)! > first),
  };
}

/** The siblings of `at` of its kind holding paragraphs, none picked, little link text and no other story. */
function likeParts($: CheerioAPI, parent: Element, at: Element, kind: string, picked: Set<string>) {
  return parent.children.filter((part): part is Element => {
    if (!isTag(part) || part === at || kindOf(part) !== kind) return false;
    const paragraphs = $(part).find(`[${PART_MARK}]`).toArray();
    if (paragraphs.length === 0 || paragraphs.some((p) => picked.has(p.attribs[PART_MARK]!))) return false;
    if ($(part).is(NOT_PART) || $(part).find(NOT_PART).length > 0) return false;
    const text = $(part).text().replace(/\s+/g, '').length;
    const links = $(part).find('a').text().replace(/\s+/g, '').length;
    return links <= MAX_PART_LINK_SHARE * text;
  });
}

/** A standfirst is a sentence or two: this many characters at least and at most, ending as a sentence ends. */
const STANDFIRST_MIN_CHARS = 30;
const STANDFIRST_MAX_CHARS = 400;
const SENTENCE_END = /[.!?…。！？]["'”’»)]*$/u;
/** Elements after the h1 looked at, per level, and levels climbed from it. */
const STANDFIRST_LOOKS = 4;
const STANDFIRST_LEVELS = 3;
const BYLINE = /^by\s/i;
/** An h1 this long that starts the page's title is its headline. */
const MIN_TITLE_CHARS = 10;
const STANDFIRST_TAGS = new Set(['p', 'div', 'h2', 'span']);
const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The h1 that is the article's title, `title` being the page's: a dialog's or a newsletter box's h1 is not.
 */
export function headline($: CheerioAPI, title: string): Element | undefined {
  const heading = squeeze(title);
  if (!heading) return undefined;
  return $('body')
    .find('h1')
    .toArray()
    .find((element) => {
      const text = squeeze($(element).text());
      // The page's <title> often adds the site's name after the headline.
      return text === heading || (text.length >= MIN_TITLE_CHARS && heading.startsWith(text));
    });
}

/**
 * The standfirst under the page's h1 (a sentence or two saying what the story is about) when Readability left
 * it out: it sits in the page's header beside the title, outside the body Readability scores. The first
 * element after the h1 (climbing a few wrappers) whose text reads as a sentence, is not mostly links and is
 * not in `articleText`.
 */
export function standfirst($: CheerioAPI, articleText: string, title: string, byline: string): string | null {
  const h1 = headline($, title);
  if (!h1) return null;
  const inArticle = squeeze(articleText);
  const author = squeeze(byline);
  let at: Element = h1;
  for (let level = 0; level < STANDFIRST_LEVELS; level++) {
    // Up from the h1 through its header's wrappers only: past them come the body and the page's boxes.
    if (level > 0 && squeeze($(at).text()).length > STANDFIRST_MAX_CHARS) break;
    let next = at.nextSibling;
    for (let looks = 0; next && looks < STANDFIRST_LOOKS; next = next.nextSibling) {
      if (!isTag(next)) continue;
      looks++;
      const text = squeeze($(next).text());
      // Past the standfirst's place: the body, or a box as long, comes after it.
      if (text.length > STANDFIRST_MAX_CHARS) return null;
      if (!STANDFIRST_TAGS.has(next.name) || text.length < STANDFIRST_MIN_CHARS) continue;
      if (!SENTENCE_END.test(text) || inArticle.includes(text)) continue;
      // A byline ends as a sentence too ("By Ada Lovelace, updated 3:31 p.m.").
      if (BYLINE.test(text) || (author && text.includes(author))) continue;
      const links = squeeze($(next).find('a').text()).length;
      if (links > MAX_PART_LINK_SHARE * text.length) continue;
      return text;
    }
    const parent = at.parent;
    if (!isTag(parent) || parent.name === 'body') break;
    at = parent;
  }
  return null;
}
