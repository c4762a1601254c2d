// Main-content extraction with Mozilla Readability over linkedom (about 8x faster than over jsdom and it
// found content on all 130 pages of Readability's own test corpus). Elements matching
// keep_selectors that Readability leaves out are appended after the article.
import { Readability } from '@mozilla/readability';
import { type CheerioAPI, load } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { parseHTML } from 'linkedom';
import { dropLinkBlocks, dropRepeatedLines, isSpacer, takeHeadLines, trimTail } from './article-trim.js';
import { dropBoilerplate } from './boilerplate.js';
import { dropCaptions, dropPictureText } from './captions.js';
import { keyPoints } from './key-points.js';
import { type Items, largestItems } from './listing.js';
import { headline, markParagraphs, missingParts, PART_MARK, standfirst } from './parts.js';
import { holdsDescription, productDescription } from './product.js';
import { proseChars, squeezed } from './prose.js';
import { pageSections } from './sections.js';

/** Below this much article text the page is taken whole: Readability found no real main content. */
export const MIN_ARTICLE_CHARS = 200;

const KEEP_MARK = 'data-cleaner-keep';

/**
 * An article holding less than this share of the page's prose (a table of names, a contact box) is a doubtful
 * pick: Readability looks again, without it, and the pick with more prose wins. Low on purpose: at a third or
 * a half, the second pick was as often the comments or a cookie notice as the article (cleaner bench).
 */
export const SECOND_LOOK_PROSE_SHARE = 0.12;
/** A page with less prose than this (a listing, a form) gets no second look. */
export const SECOND_LOOK_MIN_PAGE_PROSE = 1_000;

type Article = ReturnType<Readability<string>['parse']>;

const readArticle = (document: ReturnType<typeof parseHTML>['document']): Article =>
  new Readability(document as unknown as Document, { keepClasses: false }).parse();

const articleProse = (article: Article): number =>
  article?.content ? proseChars(load(article.content).root().get(0)!) : 0;

/**
 * Readability's article, or its second pick when the first holds little of the page's prose and the second
 * more (`first` then keeps the first pick, should the second come to nothing). Readability moves the nodes it
 * picks out of the document, so a second run over the same document finds the next best content; it runs
 * only for a doubtful first pick.
 */
function pickArticle($: CheerioAPI): { article: Article; first?: Article } {
  const pageProse = proseChars($.root().get(0)!);
  const { document } = parseHTML($.html());
  const first = readArticle(document);
  const firstProse = articleProse(first);
  // A first run that found nothing can leave the document without its root: nothing to look at again.
  if (
    pageProse < SECOND_LOOK_MIN_PAGE_PROSE ||
    firstProse >= SECOND_LOOK_PROSE_SHARE * pageProse ||
    !document.documentElement
  )
    return { article: first };
  const second = readArticle(document);
  if (!second || articleProse(second) <= firstProse) return { article: first };
  // The first run took the page's <title> with it: the title is the page's, whichever pick wins.
  const title = first?.title || second.title;
  return { article: { ...second, title, byline: second.byline || first?.byline || null }, first };
}

/**
 * The article's content without Readability's page wrapper and with the trim steps applied (links blocks,
 * picture text, repeated lines, the tail).
 */
function trimmedContent(content: string, isKept: (element: Element) => boolean) {
  const $article = load(content);
  // Readability wraps the content in <div id="readability-page-1" class="page">: markup, no meaning.
  $article('body > div.page').replaceWith((_, page) => $article(page).contents());
  const body = $article('body').get(0);
  if (body) {
    dropLinkBlocks($article, body, isKept);
    dropPictureText($article, body, isKept, isSpacer);
    dropRepeatedLines($article, body, isKept);
    trimTail($article, body, isKept);
  }
  return { $article, body };
}

/**
 * A page's run of like items (listing.ts) is its content, rather than Readability's pick, when the items
 * outnumber the pick's other blocks (a newsletter box, a footer, a welcome note: a few paragraphs) and hold
 * at least LISTING_TEXT_SHARE of those blocks' text. An article's paragraphs outnumber and outweigh the cards
 * of related stories beside it.
 */
export const LISTING_TEXT_SHARE = 0.5;
/** A pick with this much text besides the items is an article (its comments or related cards beside it). */
export const LISTING_MAX_OTHER_CHARS = 1_000;
/** ... or this many blocks: a box or two (a heading, a paragraph or two); more is an article's own text. */
export const LISTING_MAX_OTHER_BLOCKS = 4;
const TEXT_BLOCKS = 'p, li, dd, blockquote, pre, h1, h2, h3, h4, h5, h6';

const noArticle = {
  title: '',
  byline: null,
  excerpt: null,
  siteName: null,
  lang: null,
  dir: null,
  publishedTime: null,
  length: 0,
};
const ITEMS_MARK = 'data-cleaner-items';
/**
 * What Readability's pick holds before the items, in order: a listing's heading and its lead (a category's
 * blurb, a welcome note above a shop's grid, a thread's title). What follows the items (a newsletter box, a
 * footer) stays out. Linear: each ancestor's earlier siblings are read once.
 */
function leadBefore($pick: CheerioAPI, items: Element): string {
  const parts: string[] = [];
  for (let at: Element = items; at.parent && at.parent.type === 'tag'; at = at.parent as Element) {
    const before: string[] = [];
    for (let sibling = at.prev; sibling; sibling = sibling.prev) before.push($pick.html(sibling));
    parts.push(before.reverse().join(''));
  }
  return parts.reverse().join('');
}

/**
 * The page's items with the pick's lead (leadBefore) when they, not Readability's pick, are its content.
 * `items` was marked (ITEMS_MARK) before Readability ran: the pick holds them when it holds the mark (it took
 * a thread with the boxes around it).
 */
function listingOf($: CheerioAPI, items: Items | null, article: Article): string | null {
  if (!items || items.chars < MIN_ARTICLE_CHARS) return null;
  const $pick = load(article?.content ?? '');
  const $inside = $pick(`[${ITEMS_MARK}]`);
  const otherChars = squeezed($pick.root().text()).length - squeezed($inside.text()).length;
  const otherBlocks = $pick(TEXT_BLOCKS).length - $inside.find(TEXT_BLOCKS).length;
  // A pick of the items alone needs no change; a pick with much prose of its own is an article.
  if (otherChars < MIN_ARTICLE_CHARS || otherChars >= LISTING_MAX_OTHER_CHARS) return null;
  if (otherBlocks > LISTING_MAX_OTHER_BLOCKS || items.count <= otherBlocks) return null;
  if (items.chars < LISTING_TEXT_SHARE * otherChars) return null;
  const inPick = $inside.get(0);
  return `${inPick ? leadBefore($pick, inPick) : ''}${$.html(items.container)}`;
}

/**
 * A pick whose text is mostly the page's items (a thread's posts) ends with them: what follows them in the
 * pick, when it is a small share of it, is the boxes after a thread (similar threads, "about us", a prompt
 * to log in). An article's own text after a run of cards is more than that share, or the cards are not most
 * of the pick.
 */
export const ITEMS_PICK_SHARE = 0.5;
export const MAX_AFTER_ITEMS_SHARE = 0.15;

function endAtItems(article: NonNullable<Article>): NonNullable<Article> {
  // Most picks hold no items: their HTML is not parsed again to find none.
  if (!article.content?.includes(ITEMS_MARK)) return article;
  const $pick = load(article.content);
  const inside = $pick(`[${ITEMS_MARK}]`).get(0);
  if (!inside) return article;
  const pickChars = squeezed($pick.root().text()).length;
  if (squeezed($pick(inside).text()).length < ITEMS_PICK_SHARE * pickChars) return article;
  const after: AnyNode[] = [];
  for (let at: Element = inside; at.parent && at.parent.type === 'tag'; at = at.parent as Element)
    for (let sibling = at.next; sibling; sibling = sibling.next) after.push(sibling);
  const afterChars = after.reduce((sum, node) => sum + squeezed($pick(node).text()).length, 0);
  if (afterChars === 0 || afterChars > MAX_AFTER_ITEMS_SHARE * pickChars) return article;
  $pick(after).remove();
  return { ...article, content: $pick('body').html() ?? '', textContent: $pick('body').text() };
}

/** The marks (PART_MARK) of the paragraphs in Readability's pick. */
const pickedMarks = (article: NonNullable<Article>) =>
  new Set(load(article.content ?? '')(`[${PART_MARK}]`).map((_, element) => element.attribs[PART_MARK]!));

/** The page's sections (sections.ts) instead of the one Readability picked, when it picked one of them. */
function withSections($: CheerioAPI, article: NonNullable<Article>): NonNullable<Article> {
  const sections = pageSections($, pickedMarks(article));
  if (!sections) return article;
  return {
    ...article,
    content: sections.map((section) => $.html(section)).join(''),
    textContent: sections.map((section) => $(section).text()).join(' '),
  };
}

/** The article with the parts of it Readability left out (parts.ts), in the page's order. */
function withParts($: CheerioAPI, article: NonNullable<Article>): Article {
  const picked = pickedMarks(article);
  const { before, after } = missingParts($, picked);
  if (before.length === 0 && after.length === 0) return article;
  const html = (parts: Element[]) => parts.map((part) => $.html(part)).join('');
  const added = [...before, ...after].map((part) => $(part).text()).join(' ');
  return {
    ...article,
    content: `${html(before)}${article.content}${html(after)}`,
    textContent: `${article.textContent ?? ''} ${added}`,
  };
}

/**
 * The article with the key points (key-points.ts) between the page's headline and the pick's first paragraph
 * first, when Readability left them out. Reads the paragraph marks (markParagraphs): before they go.
 */
function withKeyPoints($: CheerioAPI, article: NonNullable<Article>, title: string): Article {
  const h1 = headline($, title);
  if (!h1 || !article.content?.includes(PART_MARK)) return article;
  const mark = load(article.content)(`[${PART_MARK}]`)
    .toArray()
    .reduce(
      (least, element) => Math.min(least, Number(element.attribs[PART_MARK])),
      Number.POSITIVE_INFINITY,
    );
  const first = $(`[${PART_MARK}="${mark}"]`).get(0);
  const list = first ? keyPoints($, h1, first, article.textContent ?? '') : null;
  if (!list) return article;
  return {
    ...article,
    content: `${$.html(list)}${article.content}`,
    textContent: `${$(list).text()} ${article.textContent ?? ''}`,
  };
}

/** The article with the page's product description (product.ts) first, when Readability left it out. */
function withDescription($: CheerioAPI, article: NonNullable<Article>): Article {
  const description = productDescription($);
  if (!description || holdsDescription($, description, article.textContent ?? '')) return article;
  return {
    ...article,
    content: `${$.html(description)}${article.content ?? ''}`,
    textContent: `${$(description).text()} ${article.textContent ?? ''}`,
  };
}

/**
 * Headings lose their class before Readability reads the page: it takes a heading's class words for the
 * page's chrome ("subheader" reads as a header) and drops the article's own section headings. A heading
 * outside the article still goes with the block it sits in.
 */
function unclassHeadings($: CheerioAPI) {
  $('body').find('h2, h3, h4, h5, h6').removeAttr('class');
}

/**
 * A named anchor (`<a name>` without href) is a place to jump to, not a link: Readability counts the text
 * inside every `<a>` as link text, and an anchor a page leaves open wraps the whole section after it (the
 * parser carries it on), which then reads as a block of links and goes.
 */
function unwrapNamedAnchors($: CheerioAPI) {
  $('body')
    .find('a[name]:not([href])')
    .replaceWith((_, anchor) => $(anchor).contents());
}

/** The title and byline the cleaner puts before the body: the first child of its one <article>. */
export const PAGE_HEADER = 'body > article:first-child > header:first-child';

/** Marks the outermost kept elements and returns their HTML, by mark. */
function markKept($: CheerioAPI, keep: string): string[] {
  const kept: string[] = [];
  $.root()
    .find(keep)
    .filter((_, element) => $(element).parents(keep).length === 0)
    .each((_, element) => {
      kept.push($.html(element));
      $(element).attr(KEEP_MARK, String(kept.length - 1));
    });
  return kept;
}

/**
 * The main content of a prepared document as HTML in one <article>, headed by its title and byline; null when
 * Readability finds less than MIN_ARTICLE_CHARS of text. `pageTitle` is the page's <title>, if it had one: a
 * heading first in the article that says it goes to the header.
 */
export function mainContent($: CheerioAPI, keepSelectors: string[], pageTitle = ''): string | null {
  const kept = keepSelectors.length > 0 ? markKept($, keepSelectors.join(', ')) : [];
  // Page chrome goes first: Readability scores blocks by their text, and a newsletter box or a footer with
  // a paragraph in it can outscore a listing's short items or a forum's posts.
  dropBoilerplate($, `[${KEEP_MARK}]`, pageTitle);
  dropCaptions($, (element) => element.attribs[KEEP_MARK] !== undefined);
  unclassHeadings($);
  unwrapNamedAnchors($);
  const paragraphs = markParagraphs($);
  const items = largestItems($);
  if (items) items.container.attribs[ITEMS_MARK] = '';
  const picked = pickArticle($);
  let article = picked.article;
  const isKept = (element: Element) => element.attribs[KEEP_MARK] !== undefined;
  const listing = listingOf($, items, article);
  if (items) delete items.container.attribs[ITEMS_MARK];
  if (listing)
    article = { ...(article ?? noArticle), content: listing, textContent: load(listing).root().text() };
  else if (article?.content) {
    article = endAtItems(article);
    if (paragraphs > 0) article = withParts($, withSections($, article));
    if (paragraphs > 0 && article) article = withKeyPoints($, article, article.title || pageTitle);
    if (article?.content) article = withDescription($, article);
  }
  $(`[${PART_MARK}]`).removeAttr(PART_MARK);
  if (!article?.content || (article.textContent ?? '').trim().length < MIN_ARTICLE_CHARS) {
    $(`[${KEEP_MARK}]`).removeAttr(KEEP_MARK); // the caller falls back to the whole document
    return null;
  }

  let { $article, body } = listing
    ? { $article: load(article.content), body: undefined }
    : trimmedContent(article.content, isKept);
  // A second pick the trim steps leave (nearly) empty was a page's wrapper of link blocks: the first stands.
  if (picked.first?.content && $article.root().text().trim().length < MIN_ARTICLE_CHARS) {
    article = { ...picked.first, title: article.title, byline: picked.first.byline || article.byline };
    ({ $article, body } = trimmedContent(picked.first.content, isKept));
  }
  // A pick the trim steps leave (nearly) empty was a block of links (a post that is a list of links, once the
  // sidebar's boxes are gone): Readability found no real main content, and the page is taken whole.
  if ($article.root().text().trim().length < MIN_ARTICLE_CHARS) {
    $(`[${KEEP_MARK}]`).removeAttr(KEEP_MARK);
    return null;
  }
  // It also takes the title and the byline (author, often the date) out of the content: put them back, in
  // one <header> first in the <article> (PAGE_HEADER), so that what is the page's and what is the body's
  // stays told apart.
  // The short lines before the first sentence (dateline, kicker) join them there.
  // The standfirst Readability left out (parts.ts) opens the body: it says what the story is about.
  const dek = listing
    ? null
    : standfirst($, $article.root().text(), article.title || pageTitle, article.byline ?? '');
  if (dek) $article('body').prepend($article('<p>').text(dek));
  const text = $article.root().text();
  const title = article.title?.trim();
  const byline = article.byline?.trim();
  const header = [
    title && !text.includes(title) ? $article('<h1>').text(title) : null,
    byline && !text.includes(byline) ? $article('<p>').text(byline) : null,
    ...(body
      ? takeHeadLines($article, body, isKept, [title ?? '', pageTitle]).map((line) => $article(line))
      : []),
  ].filter((element) => element !== null);
  if (header.length > 0) $article('body').prepend($article('<header>').append(...header));
  const present = new Set($article(`[${KEEP_MARK}]`).map((_, element) => $article(element).attr(KEEP_MARK)));
  // One append: appending element by element is quadratic in the number of kept elements.
  $article('body').append(kept.filter((_, mark) => !present.has(String(mark))).join(''));
  $article(`[${KEEP_MARK}]`).removeAttr(KEEP_MARK);
  $article(`[${ITEMS_MARK}]`).removeAttr(ITEMS_MARK);
  $article(`[${PART_MARK}]`).removeAttr(PART_MARK);
  // One <article> around it all: a later cleaner's drop_boilerplate then takes it for the content it is
  // (its lists of links are not menus, its header and footer are its own).
  return `<article>${$article('body').html() ?? ''}</article>`;
}
