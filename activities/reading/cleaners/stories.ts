// A page that runs on into other stories (infinite scroll): below the article the site appends the next
// stories, each an <article> like the page's own with a headline (h1) of its own. Readability scores them all
// as one body, and the page chrome rules see content in each. The page's story is the one whose h1 says the
// page's <title>: its box's like siblings that hold an article and another h1 are other stories, and go.
// Linear: the h1s and articles mark their ancestors once (a climb stops where another began), and one climb
// from the title's h1 looks at each level's siblings once.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { saysTitle } from './article-trim.js';

/** Levels climbed from the title's h1 to the box of the story. */
const MAX_STORY_DEPTH = 12;

/** The page's story holds at least this share of the text of the largest other one. */
const MIN_STORY_SHARE = 0.25;

const isTag = (node: AnyNode | null): node is Element => node?.type === 'tag';
const kindOf = (element: Element) =>
  `${element.name}.${(element.attribs.class ?? '').trim().split(/\s+/)[0] ?? ''}`;

/** Elements holding one of `elements` (those included). */
function holdersOf(elements: Element[]): Set<Element> {
  const holders = new Set<Element>();
  for (const element of elements)
    for (let at: AnyNode | null = element; isTag(at) && !holders.has(at); at = at.parent) holders.add(at);
  return holders;
}

/**
 * The page's other stories: from the h1 that says `title`, the first box up whose like siblings (same tag and
 * first class) hold an article and an h1 that does not say the title; those siblings. Empty when the page has
 * one h1, no h1 says its title, or the title's box is a headline beside a body (a hero).
 */
export function otherStories($: CheerioAPI, title: string, isKept: (element: Element) => boolean): Element[] {
  if (!title) return [];
  const h1s = $('body').find('h1').toArray();
  if (h1s.length < 2) return [];
  const titled = new Set(h1s.filter((h1) => saysTitle($(h1).text(), title)));
  const [own] = titled;
  if (!own) return [];
  // Another story has a headline of its own: a box holding the title again (a hero and the article) is the page's.
  const holders = holdersOf(h1s.filter((h1) => !titled.has(h1)));
  // ... and is an <article> (a section's h1 inside one article is no other story).
  const articles = holdersOf($('body').find('article').toArray());
  let at: Element = own;
  for (let level = 0; level < MAX_STORY_DEPTH; level++) {
    const parent = at.parent;
    if (!isTag(parent) || at.name === 'body' || parent.name === 'html') return [];
    const kind = kindOf(at);
    const others = parent.children.filter(
      (sibling): sibling is Element =>
        isTag(sibling) &&
        sibling !== at &&
        holders.has(sibling) &&
        kindOf(sibling) === kind &&
        articles.has(sibling),
    );
    if (others.length > 0) {
      // A box of the headline alone (a hero) beside the body is no story: the body is not another.
      const largest = others.reduce((most, story) => Math.max(most, textChars(story)), 0);
      if (textChars(at) < MIN_STORY_SHARE * largest) return [];
      return others.filter((story) => !isKept(story) && !holdsKept(story, isKept));
    }
    at = parent;
  }
  return [];
}

function textChars(root: Element): number {
  let chars = 0;
  const stack: AnyNode[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'text') chars += (node as Text).data.replace(/\s+/g, '').length;
    else if (isTag(node)) for (const child of node.children) stack.push(child);
  }
  return chars;
}

function holdsKept(story: Element, isKept: (element: Element) => boolean): boolean {
  const stack: Element[] = [story];
  for (let element = stack.pop(); element; element = stack.pop()) {
    if (isKept(element)) return true;
    for (const child of element.children) if (isTag(child)) stack.push(child);
  }
  return false;
}
