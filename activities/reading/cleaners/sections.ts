// A page made of sections (a product's or a service's landing page: a hero, its benefits, quotes of
// customers, success stories, how it keeps brands safe), none of them marked as the main content. Readability
// takes the section with the best-scored block (a slider of quotes) and the other sections are lost, though
// together they are the page's text. Found here: the box that holds nearly all of the page's prose, when its
// children share the prose out as sections, several under headings of their own, and Readability's pick
// sits inside one of them holding a minor share of it. Linear: one walk without recursion for the counts,
// then one descent.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { PART_MARK } from './parts.js';
import { proseChars } from './prose.js';

/** The box of the page's sections holds this share of its marked prose: below it the page is not one. */
const MIN_BOX_PROSE_SHARE = 0.9;
/** At least this many of the box's children hold prose and a heading: sections, not an article and its notes. */
export const MIN_SECTIONS = 4;
/** The pick's section holds less than this share of the box's prose: an article outweighs what is beside it. */
export const MAX_PICKED_SECTION_SHARE = 0.5;
/** A page marked with its main content says where it is; the sections rule is for pages that do not. */
const MAIN_CONTENT = 'main, article, [role="main"]';
const HEADING = /^h[1-4]$/;

interface Counts {
  prose: number;
  heading: boolean;
  /** Holds a paragraph of Readability's pick. */
  picked: boolean;
}

const isTag = (node: AnyNode): node is Element => node.type === 'tag';

/** Prose of the marked paragraphs (parts.ts) under each element, bottom-up without recursion. */
function countAll(body: Element, picked: Set<string>): Map<Element, Counts> {
  const counts = new Map<Element, Counts>();
  const stack: { element: Element; open: boolean }[] = [{ element: body, open: true }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { element } = entry;
    if (entry.open) {
      stack.push({ element, open: false });
      for (const child of element.children) if (isTag(child)) stack.push({ element: child, open: true });
      continue;
    }
    const mark = element.attribs[PART_MARK];
    const own: Counts = {
      prose: mark === undefined ? 0 : proseChars(element),
      heading: HEADING.test(element.name),
      picked: mark !== undefined && picked.has(mark),
    };
    for (const child of element.children) {
      const sub = isTag(child) ? counts.get(child) : undefined;
      if (!sub || mark !== undefined) continue; // a paragraph's prose counts once, as its own
      own.prose += sub.prose;
      own.heading ||= sub.heading;
      own.picked ||= sub.picked;
    }
    counts.set(element, own);
  }
  return counts;
}

/**
 * The page's sections in order when Readability's pick (`picked`: the marks of its paragraphs) is one minor
 * section of a page made of them (see above); null otherwise.
 */
export function pageSections($: CheerioAPI, picked: Set<string>): Element[] | null {
  const body = $('body').get(0);
  if (!body || picked.size === 0 || $(body).find(MAIN_CONTENT).length > 0) return null;
  const counts = countAll(body, picked);
  let box: Element = body;
  for (;;) {
    const total = counts.get(box)!.prose;
    const inner = box.children.find(
      (child) => isTag(child) && counts.get(child)!.prose >= MIN_BOX_PROSE_SHARE * total,
    );
    if (!inner || !isTag(inner)) break;
    box = inner;
  }
  const total = counts.get(box)!.prose;
  const sections = box.children.filter(
    (child): child is Element => isTag(child) && counts.get(child)!.prose > 0,
  );
  const headed = sections.filter((section) => counts.get(section)!.heading).length;
  const withPick = sections.filter((section) => counts.get(section)!.picked);
  if (headed < MIN_SECTIONS || withPick.length !== 1) return null;
  return counts.get(withPick[0]!)!.prose < MAX_PICKED_SECTION_SHARE * total ? sections : null;
}
