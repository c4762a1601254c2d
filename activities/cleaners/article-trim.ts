// What Readability leaves in an article that is not its body text: figure captions (photo credits and
// picture descriptions), blocks that are mostly links (related stories, tag lists, "follow us"), the trail of
// short unpunctuated lines after the last paragraph ("Related", "Share", a newsletter prompt), and the short
// lines before the first sentence (dateline, kicker), which the cleaner moves to its header rather than drops.
// Measured on the cleaner bench (README "Cleaners"). Linear: link and text counts are taken in one bottom-up
// walk, decisions made top-down; the edges are trimmed one block at a time, a bounded number of times.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

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
const WORD = /[\p{L}\p{N}]+/gu;

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

/** Figure captions go; so do blocks of two or more links that are mostly link text. */
export function dropLinkBlocks($: CheerioAPI, root: Element, isKept: (element: Element) => boolean) {
  $(root)
    .find('figcaption')
    .not((_, element) => isKept(element))
    .remove();
  const counts = countAll(root, isKept);
  const doomed: Element[] = [];
  const stack: Element[] = [root];
  for (let element = stack.pop(); element; element = stack.pop()) {
    const count = counts.get(element)!;
    if (
      element !== root &&
      LINK_BLOCK_TAGS.has(element.name) &&
      !count.kept &&
      count.links >= 2 &&
      count.link >= LINK_BLOCK_DENSITY * count.text
    )
      doomed.push(element);
    else for (const child of element.children) if (child.type === 'tag') stack.push(child);
  }
  for (const element of doomed) $(element).remove();
}

const blocksOf = (element: Element) =>
  element.children.filter((child): child is Element => child.type === 'tag' && BLOCK_TAGS.has(child.name));

/** A container of blocks beside two like it (before it, or after it): an item of a listing, left alone. */
function isRepeatedItem(container: Element, side: 'prev' | 'next'): boolean {
  let like = 0;
  for (let sibling = container[side]; sibling && like < 2; sibling = sibling[side])
    if (sibling.type === 'tag' && sibling.name === container.name && blocksOf(sibling).length > 0) like++;
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
  (text.match(WORD)?.length ?? 0) < SHORT_LINE_WORDS &&
  !SENTENCE_END.test(text);

/**
 * Takes out the short lines before the first sentence (dateline, kicker, "updated at", a video player's
 * label): page header material, which the cleaner moves to its header. At most MAX_HEAD_LINES.
 */
export function takeHeadLines(
  $: CheerioAPI,
  root: Element,
  isKept: (element: Element) => boolean,
): Element[] {
  const lines: Element[] = [];
  for (let step = 0; step < MAX_TAIL_BLOCKS && lines.length < MAX_HEAD_LINES; step++) {
    const block = edgeBlock(root, 'first');
    if (!block || isKept(block) || $(block).find('img, picture, video, a').length > 0) break;
    const text = $(block).text().trim();
    if (!isShortLine(block, text)) break;
    // A container its lines left empty goes without a word.
    if (text) lines.push(block);
    $(block).remove();
  }
  return lines;
}

/** Drops, from the end, blocks of links and short lines that end no sentence; lists and tables only for links. */
export function trimTail($: CheerioAPI, root: Element, isKept: (element: Element) => boolean) {
  for (let index = 0; index < MAX_TAIL_BLOCKS; index++) {
    const block = edgeBlock(root, 'last');
    if (!block || isKept(block) || $(block).find('img, picture, video').length > 0) return;
    const $block = $(block);
    const text = $block.text().trim();
    const linkText = $block.find('a').text().replace(/\s+/g, '').length;
    const linky = linkText >= LINK_BLOCK_DENSITY * text.replace(/\s+/g, '').length;
    if (!linky && !isShortLine(block, text)) return;
    $block.remove();
  }
}
