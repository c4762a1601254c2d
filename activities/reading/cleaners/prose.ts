// How much running prose a document holds: the text of blocks that read as sentences, by characters. The
// readability cleaner compares the article Readability picked with the page: an article that holds a small
// part of the page's prose is a wrong pick (a table of names, a contact box, a list of links with commas in
// it), and a second look finds the prose Readability passed over. Linear: one walk without recursion.
import type { AnyNode, Element } from 'domhandler';

/** The text without its whitespace: what the cleaners compare and count, however a page spaces it. */
export const squeezed = (text: string) => text.replace(/\s+/g, '');

/** A line of at least this many characters, with a sentence end in it, is prose. */
export const PROSE_BLOCK_CHARS = 80;
/** ... and with a sentence end every this many characters at least: a list of names with commas is not. */
const SENTENCE_EVERY = 300;
/** A sentence's end: a stop before a space or the end (not the dot of a domain name), or a CJK stop. */
const SENTENCE_END = /[.!?…।؟](?=[\s"'”’»)\]]|$)|[。！？]/gu;

/** Inline elements: their text belongs to the block around them (a <br> ends a line of it). */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
]);

/** Scripts written without spaces say in one character what others say in about three. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const WIDE_WEIGHT = 3;

/** Characters of `line` if it reads as prose (a wide character counting WIDE_WEIGHT), else 0. */
function proseOf(line: string): number {
  const text = line.replace(/\s+/g, ' ').trim();
  const length = text.length + (WIDE_WEIGHT - 1) * (text.match(WIDE)?.length ?? 0);
  if (length < PROSE_BLOCK_CHARS) return 0;
  const ends = text.match(SENTENCE_END)?.length ?? 0;
  return ends >= Math.max(1, Math.floor(length / SENTENCE_EVERY)) ? length : 0;
}

/**
 * Characters of prose under `root`: the lines of each block's own text (inline elements included, a <br>
 * ending a line) that read as prose.
 */
export function proseChars(root: AnyNode): number {
  // Lines are built in document order: the walk visits children first to last, so a block's open line is
  // the last one started for it.
  const lines = new Map<AnyNode, string[]>();
  const stack: { node: AnyNode; block: AnyNode }[] = [{ node: root, block: root }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { node, block } = entry;
    if (node.type === 'text') {
      const open = lines.get(block);
      if (open) open[open.length - 1] += node.data;
      else lines.set(block, [node.data]);
    } else if (node.type === 'tag' && (node as Element).name === 'br') lines.get(block)?.push('');
    else if ('children' in node) {
      const inner = node.type === 'tag' && !INLINE.has((node as Element).name) ? node : block;
      for (let index = node.children.length - 1; index >= 0; index--)
        stack.push({ node: node.children[index]!, block: inner });
    }
  }
  let chars = 0;
  for (const blockLines of lines.values()) for (const line of blockLines) chars += proseOf(line);
  return chars;
}
