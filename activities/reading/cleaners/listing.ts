// A page whose content is a list of like items (a shop's grid, a news index, a forum thread's posts): the
// items are its content. Readability scores blocks by their prose, so a newsletter box or a footer with a
// paragraph in it can outscore a grid of short items or a thread's posts, or it takes one post of many. The
// readability cleaner asks this step for the page's largest run of like items and takes that instead when
// it holds clearly more text than Readability's pick. Linear: counts in one bottom-up walk, no recursion.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

/** At least this many siblings of one kind make a list of items. */
export const MIN_ITEMS = 4;
/** An item has at least this many characters of text (no whitespace): an icon row is no listing. */
const MIN_ITEM_CHARS = 15;
/** Items whose text is at least this share outside links: titles with prices, blurbs, posts; not a menu. */
const MIN_OWN_TEXT_SHARE = 0.3;
/** Lines of text are not items: a listing's items are boxes of several parts. */
const NOT_ITEM_TAGS = new Set([
  'p',
  'br',
  'a',
  'span',
  'b',
  'i',
  'em',
  'strong',
  'option',
  'script',
  'style',
]);
const HEADING = /^h[1-6]$/;
/**
 * Boxes whose text is this share paragraphs, and nothing else, are an article's paragraphs each in a wrapper
 * of its own: a listing's items have a name, a price, a date or an author beside their text.
 */
const MAX_PARAGRAPH_SHARE = 0.95;

interface Counts {
  chars: number;
  linkChars: number;
  /** Characters inside <p> elements. */
  paragraphChars: number;
}

function countAll(root: Element): Map<Element, Counts> {
  const counts = new Map<Element, Counts>();
  const stack: { element: Element; open: boolean; inLink: boolean }[] = [
    { element: root, open: true, inLink: false },
  ];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { element, inLink } = entry;
    if (entry.open) {
      const link = inLink || element.name === 'a';
      const own: Counts = { chars: 0, linkChars: 0, paragraphChars: 0 };
      for (const child of element.children)
        if (child.type === 'text') {
          const chars = child.data.replace(/\s+/g, '').length;
          own.chars += chars;
          if (link) own.linkChars += chars;
        }
      counts.set(element, own);
      stack.push({ element, open: false, inLink });
      for (const child of element.children)
        if (child.type === 'tag') stack.push({ element: child, open: true, inLink: link });
    } else if (element !== root && element.parent) {
      const total = counts.get(element)!;
      if (element.name === 'p') total.paragraphChars = total.chars;
      const parent = counts.get(element.parent as Element)!;
      parent.chars += total.chars;
      parent.linkChars += total.linkChars;
      parent.paragraphChars += total.paragraphChars;
    }
  }
  return counts;
}

/** Siblings are alike when they share their tag and first class name ("post odd" and "post even" do). */
const kindOf = (element: Element) =>
  `${element.name}.${(element.attribs.class ?? '').trim().split(/\s+/)[0] ?? ''}`;

export interface Items {
  /** The element holding the items: their parent, or the table of a run of rows. */
  container: Element;
  /** How many items. */
  count: number;
  /** Characters of the items' text, without whitespace. */
  chars: number;
}

/** The page's largest run of like items by text (see above), or null when it has none. */
export function largestItems($: CheerioAPI): Items | null {
  const body = $('body').get(0);
  if (!body) return null;
  const counts = countAll(body);
  let best: Items | null = null;
  for (const [parent] of counts) {
    const groups = new Map<string, Element[]>();
    for (const child of parent.children) {
      if (child.type !== 'tag' || NOT_ITEM_TAGS.has(child.name) || HEADING.test(child.name)) continue;
      if (counts.get(child)!.chars < MIN_ITEM_CHARS) continue;
      const kind = kindOf(child);
      const group = groups.get(kind);
      if (group) group.push(child);
      else groups.set(kind, [child]);
    }
    for (const items of groups.values()) {
      if (items.length < MIN_ITEMS) continue;
      const chars = items.reduce((sum, item) => sum + counts.get(item)!.chars, 0);
      const linkChars = items.reduce((sum, item) => sum + counts.get(item)!.linkChars, 0);
      if (chars - linkChars < MIN_OWN_TEXT_SHARE * chars || (best && chars <= best.chars)) continue;
      const paragraphChars = items.reduce((sum, item) => sum + counts.get(item)!.paragraphChars, 0);
      if (paragraphChars >= MAX_PARAGRAPH_SHARE * chars) continue;
      const table = parent.name === 'tbody' || parent.name === 'thead' ? parent.parent : null;
      const container = table && table.type === 'tag' ? (table as Element) : parent;
      best = { container, count: items.length, chars };
    }
  }
  return best;
}
