// What a page shows about its product beside the cleaned text, read from the DOM it already parsed: the short
// labels of buttons and stock badges ("Add to cart", "Sold out", which cleaning drops with forms), the state
// of its buy buttons (their label and whether they are disabled), and the prices it strikes through or marks
// as old ("~~120,00 €~~ 99,00 €", `<span class="old-price">`), and the texts of its price elements, and its top headings. Shop themes render badges such as "Sold out"
// on every page and hide them with CSS, so a buy button is the stronger evidence of availability; a struck
// price is a list price, never the price; a price no price element shows (only "free shipping over $59")
// is no confirmation. And the image files its image elements show, lazy-loaded ones included (the cleaned
// text leaves out a photo whose loader has not filled in its src).
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import type { StructuredItem } from '../../../shared/structured-data.js';
import { imageKey } from './images.js';
import { pageTimes } from './page-times.js';

export const LABEL_LIMITS = {
  /** Elements read per kind, and the longest label kept. */
  elements: 300,
  chars: 80,
  /** Image elements read, the image files kept (stored with the page's content), the longest URL read. */
  images: 500,
  imageFiles: 300,
  urlChars: 2_000,
  /** An attribute read of an image element (a srcset lists several URLs). */
  srcsetChars: 20_000,
  /** Top headings read, and the longest kept (a headline, not a section). */
  headings: 10,
  headingChars: 400,
} as const;

/** A buy button's label and whether it is disabled (a sold-out product's, or a variant not yet chosen). */
export interface BuyButton {
  text: string;
  disabled: boolean;
}

const LABELLED =
  'button, input[type="submit" i], input[type="button" i], [class*="stock" i], [class*="availability" i], [id*="stock" i]';

/** Buy buttons by the names the common shop systems give them (Shopify, WooCommerce, Magento, Shopware, …). */
const BUY = [
  'form[action*="cart" i] button',
  'form[action*="cart" i] input[type="submit" i]',
  'form[action*="basket" i] button',
  'form[action*="warenkorb" i] button',
  'button[name="add" i]',
  'button[name*="add-to-cart" i]',
  'button[name*="addtocart" i]',
  'button[class*="add-to-cart" i]',
  'button[class*="add_to_cart" i]',
  'button[class*="addtocart" i]',
  'button[class*="tocart" i]',
  'button[class*="btn-buy" i]',
  'button[class*="buy-button" i]',
  'button[id*="add-to-cart" i]',
  'button[id*="addtocart" i]',
  'input[id*="addtocart" i]',
  'input[class*="add-to-cart" i]',
  '[data-button-action="add-to-cart" i]',
].join(', ');

/** Old and list prices: struck through, or marked by the class names themes give them. */
const STRUCK = [
  's',
  'del',
  'strike',
  '[class*="old-price" i]',
  '[class*="price-old" i]',
  '[class*="price--old" i]',
  '[class*="oldprice" i]',
  '[class*="was-price" i]',
  '[class*="price-was" i]',
  '[class*="compare-at" i]',
  '[class*="compare_at" i]',
  '[class*="price--compare" i]',
  '[class*="list-price" i]',
  '[class*="listprice" i]',
  '[class*="strike" i]',
  '[class*="crossed" i]',
  '[class*="price-before" i]',
  '[class*="rrp" i]',
  '[class*="msrp" i]',
  '[class*="uvp" i]',
].join(', ');

/** Where a page names its writers: author links and bylines (short texts only: not an author's biography). */
const AUTHORED = '[rel="author" i], [itemprop="author"], [class*="byline" i], [class*="author" i]';

/** Where themes show a price: by class, id or microdata (the product's own and its neighbours'). */
const PRICED = '[class*="price" i], [id*="price" i], [itemprop="price"], [data-price-amount]';

/** Content that shows no text of the label: icons, scripts, templates. */
const SILENT = new Set(['svg', 'script', 'style', 'noscript', 'template']);

/**
 * An element's text when it is short, its text nodes spaced apart ("Add to cart" and a spinner's "Loading"
 * are two labels, not "cartLoading"); undefined past twice the label length or 50 nodes (a whole section).
 */
function shortText(el: Element): string | undefined {
  let text = '';
  let nodes = 0;
  const walk = (node: AnyNode): boolean => {
    if (++nodes > 50 || text.length > LABEL_LIMITS.chars * 2) return false;
    if (node.type === 'text') text += ` ${(node as Text).data}`;
    if ('tagName' in node && SILENT.has(node.tagName.toLowerCase())) return true;
    const children = (node as Element).children ?? [];
    return children.every(walk);
  };
  return walk(el) ? text : undefined;
}

function labelOf($: CheerioAPI, el: Element): string | undefined {
  const raw = el.tagName.toLowerCase() === 'input' ? $(el).attr('value') : shortText(el);
  const text = raw?.replace(/\s+/g, ' ').trim();
  return text && text.length <= LABEL_LIMITS.chars ? text : undefined;
}

/** A comment section's class or id ("comments", "comment-list", "comment-123", "commentlist"). */
const COMMENT_NAME = /^(?:comments?(?:$|[-_])|commentlist$)/i;
/** How far up an author element is looked at for a comment section. */
const MAX_DEPTH = 40;

/**
 * Whether an element is or stands in a comment section: a comment's author element names a reader, or the blog's
 * owner replying, not the page's writer. The body's classes ("comments-open") say nothing of where it stands.
 */
function inComments(el: Element): boolean {
  let node: Element | null = el;
  for (
    let depth = 0;
    node && 'tagName' in node && depth < MAX_DEPTH;
    depth++, node = node.parent as Element | null
  ) {
    if (/^(?:body|html)$/i.test(node.tagName)) return false;
    const names = `${node.attribs.class ?? ''} ${node.attribs.id ?? ''}`.split(/\s+/);
    if (names.some((n) => COMMENT_NAME.test(n))) return true;
  }
  return false;
}

const elements = ($: CheerioAPI, selector: string) =>
  ($(selector).toArray() as Element[]).slice(0, LABEL_LIMITS.elements);

const isDisabled = ($: CheerioAPI, el: Element) => {
  const $el = $(el);
  return (
    $el.attr('disabled') !== undefined ||
    $el.attr('aria-disabled') === 'true' ||
    /(?:^|\s)(?:disabled|is-disabled|btn--disabled)(?:\s|$)/i.test($el.attr('class') ?? '')
  );
};

/** Where an image element names its file: lazy loaders keep it in a data attribute until it scrolls in. */
const IMAGE_ATTRIBUTES = ['src', 'data-src', 'data-lazy-src', 'srcset', 'data-srcset', 'data-lazy-srcset'];

/**
 * The files (image keys) the page's image elements show, lazy-loaded ones too: the cleaned text leaves out
 * a hero photo its loader has not filled in yet.
 */
function imageFiles($: CheerioAPI): string[] {
  const files = new Set<string>();
  for (const el of ($('body img, body picture source').toArray() as Element[]).slice(0, LABEL_LIMITS.images))
    for (const name of IMAGE_ATTRIBUTES)
      for (const candidate of ($(el).attr(name) ?? '').slice(0, LABEL_LIMITS.srcsetChars).split(',')) {
        const url = candidate.trim().split(/\s+/)[0] ?? '';
        if (url && url.length <= LABEL_LIMITS.urlChars && !url.startsWith('data:')) files.add(imageKey(url));
        if (files.size >= LABEL_LIMITS.imageFiles) return [...files];
      }
  return [...files];
}

/**
 * The texts of the page's top headings (`h1`): cleaning often drops a news page's header with its headline, and
 * a title must be the page's own heading to answer without a model (plausible.ts).
 */
function topHeadings($: CheerioAPI): string[] {
  const found = new Set<string>();
  for (const el of ($('body h1').toArray() as Element[]).slice(0, LABEL_LIMITS.headings)) {
    const text = $(el)
      .text()
      .slice(0, LABEL_LIMITS.headingChars * 2)
      .replace(/\s+/g, ' ')
      .trim();
    if (text && text.length <= LABEL_LIMITS.headingChars) found.add(text);
  }
  return [...found];
}

/**
 * The page's labels, buy buttons, struck prices, image files, marked-up times (page-times.ts) and the short
 * texts of its author and byline elements (cleaning drops a header's byline with the page's chrome) as one item
 * of source `page`; null when it has none.
 */
export function readPageLabels($: CheerioAPI): StructuredItem | null {
  const labels = new Set<string>();
  for (const el of elements($, LABELLED)) {
    const text = labelOf($, el);
    if (text) labels.add(text);
  }
  const buy: BuyButton[] = [];
  for (const el of elements($, BUY)) {
    const text = labelOf($, el);
    if (text) buy.push({ text, disabled: isDisabled($, el) });
  }
  const struck = new Set<string>();
  for (const el of elements($, STRUCK)) {
    const text = labelOf($, el);
    if (text && /\d/.test(text)) struck.add(text);
  }
  const prices = new Set<string>();
  for (const el of elements($, PRICED)) {
    const text = labelOf($, el);
    if (text && /\d/.test(text)) prices.add(text);
  }
  const authors = new Set<string>();
  for (const el of elements($, AUTHORED)) {
    if (inComments(el)) continue;
    const text = labelOf($, el);
    if (text && /\p{L}/u.test(text)) authors.add(text);
  }
  const images = imageFiles($);
  const times = pageTimes($);
  const headings = topHeadings($);
  const none = [buy, [...struck], [...prices], images, times, [...authors], headings].every(
    (list) => list.length === 0,
  );
  if (labels.size === 0 && none) return null;
  const props: Record<string, unknown> = { labels: [...labels] };
  if (images.length > 0) props.images = images;
  if (times.length > 0) props.times = times;
  if (authors.size > 0) props.authors = [...authors];
  if (headings.length > 0) props.headings = headings;
  if (buy.length > 0) props.buy = buy;
  if (struck.size > 0) props.struck = [...struck];
  if (prices.size > 0) props.prices = [...prices];
  return { source: 'page', types: [], props };
}
