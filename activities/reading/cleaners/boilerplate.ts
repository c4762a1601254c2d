// Page chrome that is never the content: navigation, site header and footer, sidebars, forms, cookie and
// consent banners, share bars, and blocks of short links (menus, footer columns, tag clouds, pagination)
// however they are marked up. Listings stay: a product grid or a result list mixes its links with prices,
// blurbs and headings, and tables, images and headings are never judged by their links. Nothing that holds
// the main content (main, article, the h1), a kept element or a large share of the page's text goes,
// whatever its name says. Two linear passes: counts bottom-up, decisions top-down, and for each block
// that goes a look at its two neighbours (a heading that labels it).
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { headline } from './parts.js';
import { otherStories } from './stories.js';

const CHROME_TAGS = new Set(['nav', 'form', 'dialog']);
/**
 * A form holding this much paragraph text is no search box or sign-up form but a shop's product form (the
 * description beside the add-to-cart button) or a page-wide form: not chrome by its tag.
 */
const MIN_FORM_PROSE_CHARS = 500;
/** Chrome of the page; inside the article or main content, see CONTENT_CHROME_TAGS. */
const SECTION_TAGS = new Set(['header', 'footer', 'aside']);
/**
 * Inside the article or main content a section's footer (tags, "posted in", the previous and next post, the
 * author's box) and an aside (related stories, a pull quote that repeats the text, a table of contents) are
 * chrome too; its header (title, byline, date) stays.
 */
const CONTENT_CHROME_TAGS = new Set(['footer', 'aside']);
/** A picture's caption and credit, short: what the picture shows is not what the page says. */
const CAPTION_TAG = 'figcaption';
const MAX_CAPTION_CHARS = 400;
/**
 * The main content and the page's h1: what holds them never goes. On a page whose h1 says its <title>, that
 * h1 is the headline and another h1 is a box's own label ("Trending on …" over other stories' cards): it
 * protects nothing.
 */
const CONTENT_TAGS = new Set(['main']);
const CHROME_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'search',
  'dialog',
  'alertdialog',
  'complementary',
]);
/**
 * An <article> holding this share of the page's text is content that never goes; smaller ones are cards (of
 * related stories, of a listing), judged like any block.
 */
const MIN_ARTICLE_TEXT_SHARE = 0.1;
/** Elements a block of links is never mistaken for a menu with. */
const NOT_MENU_TAGS = new Set(['table', 'h1', 'h2', 'h3', 'img', 'picture']);

/**
 * Class or id words that name chrome: cookie banners, share bars, skip links, the site's header and footer.
 * A word counts in a short name only ("share-bar", "cookie-notice"): ids made from headings are long
 * ("sharing-with-a-single-developer").
 */
const CHROME_WORDS = new Set([
  'cookie',
  'cookies',
  'consent',
  'gdpr',
  'onetrust',
  'masthead',
  'navbar',
  'nav',
  'navigation',
  'breadcrumb',
  'breadcrumbs',
  'share',
  'sharing',
  'social',
  'newsletter',
  'subscribe',
  'signup',
  'popup',
  'modal',
  'sidebar',
  'footer',
  // Boxes that sell or point elsewhere: ads, promotions, other stories, the author's biography.
  'ad',
  'ads',
  'advert',
  'advertisement',
  'sponsored',
  'promo',
  'promotion',
  'related',
  'recommended',
  'trending',
  'popular',
  // A publisher's "recirculation" modules: other stories to keep the reader on the site.
  'recirc',
  'recirculation',
  'outbrain',
  'taboola',
  'bio',
  // Text shown on hover (an author's card).
  'tooltip',
  // A notice to readers who block ads.
  'adblock',
  'adblocker',
  // A comment form ("leave a reply"), a copyright line, page numbers.
  'respond',
  'copyright',
  'pagination',
  'nocomments',
]);
/** Names of chrome's own software, chrome in a name of any length ("akismet_comment_form_privacy_notice"). */
const CHROME_BRANDS = new Set(['onetrust', 'outbrain', 'taboola', 'akismet']);
const CHROME_NAMES = new Set([
  'site-header',
  'site-footer',
  'global-header',
  'global-footer',
  'skip-link',
  // What a page's own print style leaves out is not its text (Bootstrap's, Tailwind's, MediaWiki's names).
  'd-print-none',
  'print:hidden',
  'noprint',
  'no-print',
  'hidden-print',
  'print-hidden',
  'do-not-print',
]);
/** A lower-case letter followed by a capital: where a camelCase name's words meet. */
const CAMEL_HUMP = /([a-z])([A-Z])/g;
const MAX_NAME_PARTS = 3;
/** Words in running text are not chrome by their class ("popup" footnote links, "social" spans). */
const INLINE_TAGS = new Set([
  'a',
  'span',
  'b',
  'i',
  'em',
  'strong',
  'small',
  'abbr',
  'code',
  'sup',
  'sub',
  'time',
  'u',
  's',
  'mark',
  'cite',
  'q',
]);

/**
 * A name's first word saying what the element has or lacks ("has-sidebar", "with-bio", "no-ads") names a
 * state of the content, not chrome.
 */
const STATE_WORDS = new Set(['has', 'with', 'without', 'no', 'not']);

/**
 * A box named a form ("comment-form", "login-form", id "form") is chrome like a <form>: unless it holds a
 * shop's description (MIN_FORM_PROSE_CHARS of paragraphs).
 */
const FORM_WORD = 'form';

function namesChrome(element: Element, c: Counts): boolean {
  if (INLINE_TAGS.has(element.name)) return false;
  // A camelCase class counts by its words too ("PagePromo" is "page-promo"); an id can be a random one ("AdDsWC").
  const names = `${(element.attribs.class ?? '').replace(CAMEL_HUMP, '$1-$2')} ${element.attribs.id ?? ''}`
    .toLowerCase()
    .split(/\s+/);
  return names.some((name) => {
    if (CHROME_NAMES.has(name)) return true;
    const parts = name.split(/[-_]+/);
    if (parts.some((part) => CHROME_BRANDS.has(part))) return true;
    if (parts.length > MAX_NAME_PARTS || STATE_WORDS.has(parts[0]!)) return false;
    if (parts.some((part) => CHROME_WORDS.has(part))) return true;
    return parts.includes(FORM_WORD) && c.paragraphChars < MIN_FORM_PROSE_CHARS;
  });
}

/** A menu: at least this many links, making up nearly all of the block's text, of a few words each. */
const MIN_MENU_LINKS = 4;
const MIN_LINK_TEXT_SHARE = 0.8;
const MAX_MENU_LINK_WORDS = 4;
/** An element holding more than this share of the page's text is never chrome (a page-wide <form>). */
const MAX_CHROME_TEXT_SHARE = 0.4;

interface Counts {
  chars: number;
  words: number;
  links: number;
  linkChars: number;
  linkWords: number;
  /** Holds main content or a kept element: never removed. */
  content: boolean;
  /** Holds a table, heading or image: never a menu. */
  notMenu: boolean;
  /** Characters inside <p> elements. */
  paragraphChars: number;
  /** Headings, paragraphs and boxes inside: a link holding one is a card's face. */
  blocks: number;
  /** Links holding a heading, paragraph or box (CARD_FACE_TAGS): cards pointing to other pages. */
  cardLinks: number;
}

const nonSpace = (text: string) => text.replace(/\s+/g, '').length;
const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

function own(element: Element, kept: Set<AnyNode>, title: Element | undefined): Counts {
  const role = element.attribs.role;
  const link = element.name === 'a';
  return {
    chars: 0,
    words: 0,
    links: link ? 1 : 0,
    linkChars: 0,
    linkWords: 0,
    content:
      CONTENT_TAGS.has(element.name) ||
      role === 'main' ||
      kept.has(element) ||
      (element.name === 'h1' && (title === undefined || title === element)),
    notMenu: NOT_MENU_TAGS.has(element.name),
    paragraphChars: 0,
    blocks: 0,
    cardLinks: 0,
  };
}

/**
 * Counts for every element, children before parents, without recursion (pages can nest very deep). `title` is
 * the h1 that says the page's title, if there is one.
 */
function countAll(root: Element, kept: Set<AnyNode>, title: Element | undefined): Map<Element, Counts> {
  const counts = new Map<Element, Counts>();
  const stack: { element: Element; visited: boolean }[] = [{ element: root, visited: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (!frame.visited) {
      stack.push({ element: frame.element, visited: true });
      for (const child of frame.element.children)
        if (child.type === 'tag') stack.push({ element: child as Element, visited: false });
      continue;
    }
    const element = frame.element;
    const total = own(element, kept, title);
    const inLink = element.name === 'a';
    for (const child of element.children) {
      if (child.type === 'text') {
        const chars = nonSpace(child.data);
        const words = wordCount(child.data);
        total.chars += chars;
        total.words += words;
        if (inLink) {
          total.linkChars += chars;
          total.linkWords += words;
        }
        continue;
      }
      const sub = counts.get(child as Element);
      if (!sub) continue;
      total.chars += sub.chars;
      total.links += sub.links;
      total.words += sub.words;
      total.linkChars += inLink ? sub.chars : sub.linkChars;
      total.linkWords += inLink ? sub.words : sub.linkWords;
      total.content ||= sub.content;
      total.notMenu ||= sub.notMenu;
      total.paragraphChars += sub.paragraphChars;
      total.blocks += sub.blocks;
      total.cardLinks += sub.cardLinks;
    }
    if (element.name === 'p') total.paragraphChars = total.chars;
    if (inLink && total.blocks > 0) total.cardLinks += 1;
    if (CARD_FACE_TAGS.has(element.name)) total.blocks += 1;
    counts.set(element, total);
  }
  return counts;
}

/**
 * Never shown: the hidden attribute, an inline display:none or visibility:hidden, aria-hidden, a framework's
 * hiding class.
 */
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

/**
 * CSS frameworks' classes for display:none (Tailwind, Bootstrap, Bulma). Not "hide": sites name a box that
 * "show more" opens so (its text is the page's).
 */
const HIDDEN_CLASSES = new Set(['hidden', 'd-none', 'is-hidden']);
/** ... unless another class shows the element at some screen width ("hidden md:block", "d-none d-lg-flex"). */
const SHOWN_AT_WIDTH = /:|^d-(?:sm|md|lg|xl|xxl)-/;

function hiddenByClass(element: Element): boolean {
  const names = (element.attribs.class ?? '').toLowerCase().split(/\s+/);
  return names.some((name) => HIDDEN_CLASSES.has(name)) && !names.some((name) => SHOWN_AT_WIDTH.test(name));
}

export const isHidden = (element: Element) =>
  element.attribs.hidden !== undefined ||
  element.attribs['aria-hidden'] === 'true' ||
  HIDDEN_STYLE.test(element.attribs.style ?? '') ||
  hiddenByClass(element);

function isChrome(element: Element, c: Counts, inContent: boolean): boolean {
  if (CHROME_ROLES.has(element.attribs.role ?? '')) return true;
  if (CHROME_TAGS.has(element.name) && (element.name !== 'form' || c.paragraphChars < MIN_FORM_PROSE_CHARS))
    return true;
  if (isHidden(element)) return true;
  if (SECTION_TAGS.has(element.name) && (!inContent || CONTENT_CHROME_TAGS.has(element.name))) return true;
  if (element.name === CAPTION_TAG && c.chars <= MAX_CAPTION_CHARS) return true;
  return namesChrome(element, c);
}

/** A block of links and little else (a menu, or a list of headlines), never a table, heading or image. */
const isLinkList = (c: Counts) =>
  !c.notMenu && c.links >= MIN_MENU_LINKS && c.linkChars >= MIN_LINK_TEXT_SHARE * c.chars;

const isMenu = (c: Counts) => isLinkList(c) && c.linkWords <= MAX_MENU_LINK_WORDS * c.links;

const isMainContent = (element: Element) =>
  element.name === 'main' || element.name === 'article' || element.attribs.role === 'main';

/**
 * A page's one main content: its only main, article or role="main" (counting none inside another) when it
 * holds at least MIN_MAIN_TEXT_SHARE of the page's text. Beside it, lists of headlines (more, most read,
 * related) are the site's, not the page's: they go like menus. A page with several articles (a news index)
 * or none (a bare listing) has no one main content, and its lists of headlines stay.
 */
const MIN_MAIN_TEXT_SHARE = 0.25;

function hasOneMainContent(body: Element, counts: Map<Element, Counts>): boolean {
  const found: Element[] = [];
  const stack: Element[] = [body];
  const card = MIN_ARTICLE_TEXT_SHARE * counts.get(body)!.chars;
  while (stack.length > 0 && found.length < 2) {
    const element = stack.pop()!;
    // A small <article> is a card (of a related story), not a second main content.
    if (element.name === 'article' && counts.get(element)!.chars < card) continue;
    if (element !== body && isMainContent(element)) {
      found.push(element);
      continue;
    }
    for (const child of element.children) if (child.type === 'tag') stack.push(child as Element);
  }
  return found.length === 1 && counts.get(found[0]!)!.chars >= MIN_MAIN_TEXT_SHARE * counts.get(body)!.chars;
}

/** Cards of other stories: at least MIN_TEASERS like boxes, each with a link, links a share of the text. */
const MIN_TEASERS = 3;
const MIN_TEASER_LINK_SHARE = 0.25;

/**
 * Beside the page's one main content, a run of like boxes each holding a link (a headline with its teaser, a
 * product of "customers also bought") points to other pages: it goes like a list of headlines.
 */
function isTeaserList(element: Element, c: Counts, counts: Map<Element, Counts>): boolean {
  if (c.linkChars < MIN_TEASER_LINK_SHARE * c.chars) return false;
  return hasLikeRun(element, counts, (sub) => sub.links > 0);
}

/**
 * Whether MIN_TEASERS of the element's children are like boxes (one tag and first class) that hold text and
 * pass `holds`.
 */
function hasLikeRun(
  element: Element,
  counts: Map<Element, Counts>,
  holds: (sub: Counts) => boolean,
): boolean {
  const kinds = new Map<string, number>();
  for (const child of element.children) {
    if (child.type !== 'tag') continue;
    const sub = counts.get(child as Element);
    if (!sub || sub.chars === 0 || !holds(sub)) continue;
    const kind = `${child.name}.${(child.attribs.class ?? '').trim().split(/\s+/)[0]}`;
    const like = (kinds.get(kind) ?? 0) + 1;
    if (like >= MIN_TEASERS) return true;
    kinds.set(kind, like);
  }
  return false;
}

const CARD_FACE_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div']);
/** A run of cards is small beside the page's paragraphs elsewhere: this share of the page's text at most, */
const MAX_CARDS_TEXT_SHARE = 0.3;
/** ... and the page's paragraphs outside it hold this many times its text (an article, not a listing). */
const MIN_PROSE_PER_CARD_TEXT = 2;

/**
 * Wherever it sits, a run of like boxes whose face is a link (a link holding a headline, a teaser line, a
 * box: "more stories", "most popular") points to other pages when the page's paragraphs elsewhere outweigh
 * it: the page is an article, and the cards are not its items. On a listing the cards are the page's text.
 */
function isCardRun(element: Element, c: Counts, counts: Map<Element, Counts>, page: Counts): boolean {
  if (c.cardLinks < MIN_TEASERS || c.chars > MAX_CARDS_TEXT_SHARE * page.chars) return false;
  if (page.paragraphChars - c.paragraphChars < MIN_PROSE_PER_CARD_TEXT * c.chars) return false;
  return hasLikeRun(element, counts, (sub) => sub.cardLinks > 0);
}

/** Articles holding MIN_ARTICLE_TEXT_SHARE of the page's text, and what holds them, are content. */
function markLargeArticles(body: Element, counts: Map<Element, Counts>) {
  const least = MIN_ARTICLE_TEXT_SHARE * counts.get(body)!.chars;
  for (const [element, count] of counts) {
    if (element.name !== 'article' || count.chars < least) continue;
    // Content is marked all the way up, so a walk ends where another began: linear in all.
    for (let at: Element | null = element; at && at !== body; at = at.parent as Element | null) {
      const above = counts.get(at);
      if (!above || above.content) break;
      above.content = true;
    }
  }
}

const LABEL_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);
/** A label is a short heading: "More on this", "Read also", "Leave a reply". */
const MAX_LABEL_CHARS = 60;

/** The nearest element sibling before or after `element`, when only whitespace lies between. */
function adjacent(element: Element, side: 'prev' | 'next'): Element | null | undefined {
  const node = element[side];
  const sibling = node?.type === 'text' && !/\S/.test(node.data) ? node[side] : node;
  if (!sibling) return null;
  return sibling.type === 'tag' ? (sibling as Element) : undefined;
}

/**
 * The heading that labels a block of chrome: a short heading without links just before it, when the block
 * ends its parent (a trailing "More on this" list or comment form), so it heads no text that follows.
 */
function labelOf(element: Element, counts: Map<Element, Counts>): Element | undefined {
  if (adjacent(element, 'next') !== null) return undefined;
  const label = adjacent(element, 'prev');
  if (!label || !LABEL_TAGS.has(label.name)) return undefined;
  const c = counts.get(label)!;
  return c.links === 0 && !c.content && c.chars <= MAX_LABEL_CHARS ? label : undefined;
}

/**
 * Removes page chrome in place; elements matching `keep` and whatever holds them stay. `title` is the page's
 * <title>: on a page that runs on into other stories (stories.ts), all but the one it names go first.
 */
export function dropBoilerplate($: CheerioAPI, keep: string, title = '') {
  const body = $('body').get(0);
  if (!body) return;
  const kept = new Set<AnyNode>(keep ? $(body).find(keep).toArray() : []);
  $(otherStories($, title, (element) => kept.has(element))).remove();
  const counts = countAll(body, kept, headline($, title));
  markLargeArticles(body, counts);
  const page = counts.get(body)!;
  const limit = MAX_CHROME_TEXT_SHARE * page.chars;
  const oneMain = hasOneMainContent(body, counts);
  const linkList = oneMain
    ? (c: Counts, element: Element) => isLinkList(c) || isTeaserList(element, c, counts)
    : isMenu;
  const doomed: Element[] = [];
  // inTable: rows of links are a table's data, never a menu.
  const stack: { element: Element; inContent: boolean; inTable: boolean }[] = [
    { element: body, inContent: false, inTable: false },
  ];
  while (stack.length > 0) {
    const { element, inContent, inTable } = stack.pop()!;
    const c = counts.get(element)!;
    if (
      element !== body &&
      !c.content &&
      c.chars <= limit &&
      (isChrome(element, c, inContent) ||
        (!inContent && !inTable && linkList(c, element)) ||
        (!inTable && isCardRun(element, c, counts, page)))
    ) {
      doomed.push(element);
      const label = labelOf(element, counts);
      if (label) doomed.push(label);
      continue;
    }
    const below = inContent || isMainContent(element);
    for (const child of element.children)
      if (child.type === 'tag')
        stack.push({
          element: child as Element,
          inContent: below,
          inTable: inTable || element.name === 'table',
        });
  }
  $(doomed).remove();
}
