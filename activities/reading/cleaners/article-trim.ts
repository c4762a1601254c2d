// What Readability leaves in an article that is not its body text: figure captions (photo credits and
// picture descriptions), blocks that are mostly links (related stories, tag lists, "follow us"), the trail of
// short unpunctuated lines after the last paragraph ("Related", "Share", a newsletter prompt), and the short
// lines before the first sentence (dateline, kicker), which the cleaner moves to its header rather than drops.
// Measured on the cleaner bench (docs/benchmarks.md, "Cleaners"). Linear: link and text counts are taken in one bottom-up
// walk, decisions made top-down; the edges are trimmed one block at a time, a bounded number of times.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { proseChars } from './prose.js';

/** A block at least this much link text (by characters) is a list of links, not body text. */
export const LINK_BLOCK_DENSITY = 0.7;
/** Lines this short that end without a sentence's punctuation are page furniture at the article's edges. */
export const SHORT_LINE_WORDS = 8;
const MAX_TAIL_BLOCKS = 50;
const MAX_HEAD_LINES = 6;

const LINK_BLOCK_TAGS = new Set(['div', 'section', 'p']);
const CONTAINER_TAGS = new Set(['div', 'section', 'article', 'main']);
/** Whole structures judged by their links only: a short table or list is still content. */
const STRUCTURE_TAGS = new Set(['ul', 'ol', 'dl', 'table', 'pre', 'figure', 'blockquote']);
const BLOCK_TAGS = new Set([
  ...LINK_BLOCK_TAGS,
  ...CONTAINER_TAGS,
  ...STRUCTURE_TAGS,
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'aside', 'footer', 'header', 'form', 'nav'],
]);
const SENTENCE_END = /[.!?…。！？।؟][\s"'”’»)\]]*$/u;
/** Words with a letter in them: a dateline's numbers ("28 August 2013, 14:00 GMT+0400") make no sentence. */
const LETTER_WORD = /[\p{L}\p{N}]*\p{L}[\p{L}\p{N}]*/gu;
/** A copyright line ("© 2013 Some Company. All rights reserved.") at the article's end is the site's. */
const COPYRIGHT = /[©℗]/u;
const COPYRIGHT_LINE_WORDS = 30;
/** A line said this many times in a row is a widget's label (a gallery's slides), not the article's text. */
export const REPEATED_LINE_RUN = 3;

interface Counts {
  text: number;
  link: number;
  links: number;
  kept: boolean;
}

/** Characters of text and of link text under every element, with the count of links: one walk, no recursion. */
function countAll(root: Element, isKept: (element: Element) => boolean): Map<Element, Counts> {
  const counts = new Map<Element, Counts>();
  // Each element is pushed twice: first to open it (children follow), then to add it into its parent.
  const stack: { element: Element; open: boolean; inLink: boolean }[] = [
    { element: root, open: true, inLink: false },
  ];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { element, inLink } = entry;
    if (entry.open) {
      const isLink = element.name === 'a';
      const own: Counts = { text: 0, link: 0, links: isLink ? 1 : 0, kept: isKept(element) };
      for (const child of element.children)
        if (child.type === 'text') {
          const length = child.data.replace(/\s+/g, '').length;
          own.text += length;
          if (inLink || isLink) own.link += length;
        }
      counts.set(element, own);
      stack.push({ element, open: false, inLink });
      for (const child of element.children)
        if (child.type === 'tag') stack.push({ element: child, open: true, inLink: inLink || isLink });
    } else if (element.parent && element !== root) {
      const total = counts.get(element)!;
      const parent = counts.get(element.parent as Element)!;
      parent.text += total.text;
      parent.link += total.link;
      parent.links += total.links;
      parent.kept ||= total.kept;
    }
  }
  return counts;
}

/**
 * A block of links holding at least this share of the article's text and of its prose is the body of a
 * roundup (a deals page naming a product in every line): its link blocks are looked for inside it.
 */
export const BODY_SHARE = 0.5;
/** Such bodies looked into, at most: each look reads the block's prose (bounded work on deep pages). */
const MAX_BODY_LOOKS = 4;

/** A footnote's mark, as a text cites it and as its list of references opens each entry: "[1]". */
const FOOTNOTE_MARK = /\[\d{1,3}\]/g;
/** A list of references opens with a mark and holds at least this many. */
const MIN_REFERENCE_MARKS = 2;

/**
 * The references a text cites ("[1] https://…", "[2] https://…" after a post that says "… [1]"): links, but
 * the text's own. Only the block's text outside its links is read, and only for blocks about to go.
 */
function isReferenceList($: CheerioAPI, block: Element): boolean {
  const $outside = $(block).clone();
  $outside.find('a').remove();
  const text = $outside.text().trim();
  return text.startsWith('[') && (text.match(FOOTNOTE_MARK)?.length ?? 0) >= MIN_REFERENCE_MARKS;
}

/** Figure captions go; so do blocks of two or more links that are mostly link text, unless they are references. */
export function dropLinkBlocks($: CheerioAPI, root: Element, isKept: (element: Element) => boolean) {
  $(root)
    .find('figcaption')
    .not((_, element) => isKept(element))
    .remove();
  const counts = countAll(root, isKept);
  const rootText = counts.get(root)!.text;
  let rootProse: number | undefined;
  let looks = 0;
  const isBody = (element: Element, count: Counts) => {
    if (count.text < BODY_SHARE * rootText || looks >= MAX_BODY_LOOKS) return false;
    looks++;
    rootProse ??= proseChars(root);
    return rootProse > 0 && proseChars(element) >= BODY_SHARE * rootProse;
  };
  const doomed: Element[] = [];
  const stack: Element[] = [root];
  for (let element = stack.pop(); element; element = stack.pop()) {
    const count = counts.get(element)!;
    if (
      element !== root &&
      LINK_BLOCK_TAGS.has(element.name) &&
      !count.kept &&
      count.links >= 2 &&
      count.link >= LINK_BLOCK_DENSITY * count.text &&
      !isBody(element, count)
    ) {
      // A list of references stays whole, and is not looked into again: each block is read once.
      if (!isReferenceList($, element)) doomed.push(element);
    } else for (const child of element.children) if (child.type === 'tag') stack.push(child);
  }
  for (const element of doomed) $(element).remove();
}

const blocksOf = (element: Element) =>
  element.children.filter((child): child is Element => child.type === 'tag' && BLOCK_TAGS.has(child.name));

/**
 * A container of blocks beside two like it (before it, or after it: same tag, about as many blocks): an item
 * of a listing, left alone. A one-line box before a container of paragraphs is not one.
 */
function isRepeatedItem(container: Element, side: 'prev' | 'next'): boolean {
  const blocks = blocksOf(container).length;
  let like = 0;
  for (let sibling = container[side]; sibling && like < 2; sibling = sibling[side]) {
    if (sibling.type !== 'tag' || sibling.name !== container.name) continue;
    const siblingBlocks = blocksOf(sibling).length;
    if (siblingBlocks > 0 && Math.abs(siblingBlocks - blocks) <= Math.max(1, blocks / 2)) like++;
  }
  return like >= 2;
}

/**
 * The first or last block: into the first or last container while it holds blocks; null inside a listing's
 * first or last item.
 */
function edgeBlock(root: Element, edge: 'first' | 'last'): Element | null {
  let at = root;
  for (;;) {
    const blocks = blocksOf(at);
    const block = edge === 'first' ? blocks[0] : blocks.at(-1);
    if (!block) return at === root ? null : at;
    if (!CONTAINER_TAGS.has(block.name) || blocksOf(block).length === 0) return block;
    if (isRepeatedItem(block, edge === 'first' ? 'next' : 'prev')) return null;
    at = block;
  }
}

/** A line that is no sentence: fewer than SHORT_LINE_WORDS words, not ending as a sentence ends. */
const isShortLine = (block: Element, text: string) =>
  !STRUCTURE_TAGS.has(block.name) &&
  (text.match(LETTER_WORD)?.length ?? 0) < SHORT_LINE_WORDS &&
  !SENTENCE_END.test(text);

/** A short line with a copyright sign: the site's notice, not the article's. */
const isCopyrightLine = (block: Element, text: string) =>
  !STRUCTURE_TAGS.has(block.name) &&
  COPYRIGHT.test(text) &&
  (text.match(LETTER_WORD)?.length ?? 0) < COPYRIGHT_LINE_WORDS;

/** A short line before the first sentence with at least this share of link text is left where it is. */
const HEAD_LINE_LINK_SHARE = 0.5;
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
/** What follows a headline in a page's <title>: "Headline | Site", "Headline - Site". */
const TITLE_SEPARATOR = /^\s*[|\-–—:·•»]/u;

/** A heading that says `title`, or the headline part of it ("Headline | Site"). */
export function saysTitle(text: string, title: string): boolean {
  const heading = squeeze(text);
  const full = squeeze(title);
  if (heading === '' || !full.startsWith(heading)) return false;
  return full.length === heading.length || TITLE_SEPARATOR.test(full.slice(heading.length));
}

/**
 * Takes out the short lines before the first sentence (dateline, kicker, "updated at", a video player's
 * label), and a heading that says the page's title (one of `titles`) however long (Readability drops such a
 * heading by comparing words, which finds none in scripts written without spaces): page header material,
 * which the cleaner moves to its header. At most MAX_HEAD_LINES.
 */
export function takeHeadLines(
  $: CheerioAPI,
  root: Element,
  isKept: (element: Element) => boolean,
  titles: string[] = [],
): Element[] {
  const lines: Element[] = [];
  for (let step = 0; step < MAX_TAIL_BLOCKS && lines.length < MAX_HEAD_LINES; step++) {
    const block = edgeBlock(root, 'first');
    if (!block || isKept(block)) break;
    // Navigation before the article (a breadcrumb trail) is the page's: it goes, and the look goes on.
    if (block.name === 'nav') {
      $(block).remove();
      continue;
    }
    if ($(block).find('img, picture, video').length > 0) break;
    const text = $(block).text().trim();
    // A line of links stays (a link the article opens with); a dateline with its section's links goes.
    const linkChars = $(block).find('a').text().replace(/\s+/g, '').length;
    if (linkChars > 0 && linkChars >= HEAD_LINE_LINK_SHARE * text.replace(/\s+/g, '').length) break;
    const heading = HEADING_TAGS.has(block.name);
    const headline = heading && titles.some((title) => saysTitle(text, title));
    if (!headline && !isShortLine(block, text)) break;
    // A heading of the level that heads later sections of the body heads its first section: it stays.
    if (heading && !headline && $(root).find(block.name).length > 1) break;
    // A container its lines left empty goes without a word.
    if (text) lines.push(block);
    $(block).remove();
  }
  return lines;
}

/** An image drawn this thin, or this small both ways, is a spacer or a rule, not a picture. */
const RULE_PX = 10;
const SPACER_PX = 50;

export function isSpacer(element: Element): boolean {
  const width = Number(element.attribs.width);
  const height = Number(element.attribs.height);
  if (element.name !== 'img' || !(width > 0) || !(height > 0)) return false;
  return Math.min(width, height) <= RULE_PX || Math.max(width, height) <= SPACER_PX;
}

const hasPicture = ($: CheerioAPI, block: Element) =>
  $(block)
    .find('img, picture, video')
    .toArray()
    .some((element) => !isSpacer(element));

/** A box after the article holding at most this many lines and less than this share of its text is no body. */
export const TAIL_BOX_LINES = 3;
export const TAIL_BOX_SHARE = 0.2;

/**
 * The box after the article's body, if any: along the last edge, the first container that follows a sibling
 * block and is small (at most TAIL_BOX_LINES lines, under TAIL_BOX_SHARE of the text, no picture, list or
 * table). A prompt to the reader ("report an error", a paywall notice, a comment policy) sits there, in a box
 * of its own beside the body; the body's own last paragraphs do not.
 */
function tailBox($: CheerioAPI, root: Element, rootChars: number): Element | null {
  let at = root;
  for (;;) {
    const blocks = blocksOf(at);
    const box = blocks.at(-1);
    if (!box || !CONTAINER_TAGS.has(box.name) || blocksOf(box).length === 0) return null;
    if (isRepeatedItem(box, 'prev')) return null;
    const $box = $(box);
    const small =
      blocks.length >= 2 &&
      $box.text().replace(/\s+/g, '').length < TAIL_BOX_SHARE * rootChars &&
      $box.find('*').filter((_, element) => BLOCK_TAGS.has(element.name) && blocksOf(element).length === 0)
        .length <= TAIL_BOX_LINES &&
      $box.find('ul, ol, dl, table, pre, figure').length === 0 &&
      !hasPicture($, box);
    if (small) return box;
    at = box;
  }
}

/**
 * Drops, from the end, blocks of links, short lines that end no sentence, a copyright line, spacer images and
 * a small box after the body (tailBox); lists and tables only for links.
 */
export function trimTail($: CheerioAPI, root: Element, isKept: (element: Element) => boolean) {
  const rootChars = $(root).text().replace(/\s+/g, '').length;
  for (let index = 0; index < MAX_TAIL_BLOCKS; index++) {
    const block = edgeBlock(root, 'last');
    if (!block || isKept(block)) return;
    const $block = $(block);
    const text = $block.text().trim();
    const linkText = $block.find('a').text().replace(/\s+/g, '').length;
    const linky = linkText >= LINK_BLOCK_DENSITY * text.replace(/\s+/g, '').length;
    const furniture = linky || isShortLine(block, text) || isCopyrightLine(block, text);
    if (furniture && !hasPicture($, block)) {
      $block.remove();
      continue;
    }
    const box = tailBox($, root, rootChars);
    if (!box || isKept(box) || $(box).find('*').toArray().some(isKept)) return;
    $(box).remove();
  }
}

/**
 * Drops lines said REPEATED_LINE_RUN or more times in a row by sibling blocks (a gallery's slide titles, a
 * carousel's labels): every one of them, since the run is the widget's. Short leaf lines only; lists, tables
 * and kept elements stay.
 */
export function dropRepeatedLines($: CheerioAPI, root: Element, isKept: (element: Element) => boolean) {
  const doomed: Element[] = [];
  const stack: Element[] = [root];
  for (let element = stack.pop(); element; element = stack.pop()) {
    let run: Element[] = [];
    let runText = '';
    const close = () => {
      if (run.length >= REPEATED_LINE_RUN) doomed.push(...run);
    };
    for (const child of blocksOf(element)) {
      stack.push(child);
      // Leaf blocks only: their text is inline, so the walk stays linear.
      const leaf = !STRUCTURE_TAGS.has(child.name) && !isKept(child) && blocksOf(child).length === 0;
      const text = leaf ? $(child).text().trim() : '';
      if (text && text === runText) run.push(child);
      else {
        close();
        run = text && isShortLine(child, text) ? [child] : [];
        runText = run.length > 0 ? text : '';
      }
    }
    close();
  }
  for (const element of doomed) $(element).remove();
}
