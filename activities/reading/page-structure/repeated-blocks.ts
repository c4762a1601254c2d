// Repeated item blocks: sibling elements with the same tag+class signature, repeated at least three times,
// each holding a link or some text (cards, rows, list items). Pure: a parsed page in, selectors and counts out.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

export interface RepeatedBlock {
  /** A CSS selector matching every member (and, counted on the page, `count` elements). */
  selector: string;
  /** Elements the selector matches on the page. */
  count: number;
  /** Members holding at least one link. */
  withLinks: number;
  /** Every member sits inside nav, header or footer: site chrome, not content. */
  inChrome: boolean;
}

export const MIN_REPEATS = 3;
/** Sibling tags that repeat for reasons other than items: text, inline markup, table cells, form parts. */
const NOT_ITEMS = new Set(
  'p a span strong em b i u small br hr img picture source svg path td th option input label button script style link meta h1 h2 h3 h4 h5 h6 head title col thead tbody'.split(
    ' ',
  ),
);
const SAFE_CLASS = /^[A-Za-z_][\w-]{0,60}$/;
export const CHROME = 'nav, header, footer';

/** `tag.class-a.class-b`: the tag and up to three CSS-safe classes, sorted (state classes vary, so few). */
export function signature(el: Element): string {
  const classes = (el.attribs.class ?? '')
    .split(/\s+/)
    .filter((c) => SAFE_CLASS.test(c))
    .sort()
    .slice(0, 3);
  return [el.tagName.toLowerCase(), ...classes].join('.');
}

/** A selector for an element's position: `#id`, else `tag.classes`, prefixed by its parent's when bare. */
export function anchorOf(el: Element): string {
  const id = el.attribs.id;
  if (id && SAFE_CLASS.test(id)) return `#${id}`;
  const sig = signature(el);
  const parent = el.parent;
  if (sig.includes('.') || !parent || parent.type !== 'tag') return sig;
  return `${anchorOf(parent as Element)} > ${sig}`;
}

function isItem($: CheerioAPI, el: Element): boolean {
  const node = $(el);
  if (node.children().length === 0) return false;
  const text = node.text().replace(/\s+/g, ' ').trim();
  return node.find('a[href]').length > 0 ? text.length > 0 : text.length >= 20;
}

/** Every repeated block on the page, best first (content before chrome, linked before unlinked, larger first). */
export function findRepeatedBlocks($: CheerioAPI): RepeatedBlock[] {
  const selectors = new Set<string>();
  $('body, body *').each((_, parent) => {
    const groups = new Map<string, Element[]>();
    for (const child of $(parent).children().toArray()) {
      if (NOT_ITEMS.has(child.tagName.toLowerCase())) continue;
      const sig = signature(child);
      groups.set(sig, [...(groups.get(sig) ?? []), child]);
    }
    for (const [sig, members] of groups) {
      if (members.length < MIN_REPEATS) continue;
      if (members.filter((m) => isItem($, m)).length >= MIN_REPEATS)
        selectors.add(`${anchorOf(parent as Element)} > ${sig}`);
    }
  });
  const blocks = [...selectors].map((selector) => measure($, selector));
  return withoutNested($, blocks).sort(
    (a, b) =>
      Number(a.inChrome) - Number(b.inChrome) ||
      Number(b.withLinks * 2 >= b.count) - Number(a.withLinks * 2 >= a.count) ||
      b.count - a.count,
  );
}

function measure($: CheerioAPI, selector: string): RepeatedBlock {
  const members = $(selector);
  return {
    selector,
    count: members.length,
    withLinks: members.filter((_, el) => $(el).find('a[href]').length > 0).length,
    inChrome: members.toArray().every((el) => $(el).closest(CHROME).length > 0),
  };
}

/** Drops blocks living inside another block's members (the parts of each card repeat too). */
function withoutNested($: CheerioAPI, blocks: RepeatedBlock[]): RepeatedBlock[] {
  return blocks.filter(
    (block) =>
      !blocks.some(
        (outer) =>
          outer !== block &&
          $(block.selector)
            .toArray()
            .every((el) => $(el).parents(outer.selector).length > 0),
      ),
  );
}

/** The main listing block: the first content block whose members mostly carry links. */
export function mainBlock(blocks: RepeatedBlock[]): RepeatedBlock | null {
  return blocks.find((b) => !b.inChrome && b.withLinks * 4 >= b.count * 3) ?? null;
}
