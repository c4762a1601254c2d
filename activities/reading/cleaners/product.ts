// A product page's own description, as its schema.org markup names it: Readability scores blocks by their
// prose, so on a shop's page it often takes the customer reviews, or a long marketing text, and leaves out
// the description with its table of attributes (aroma, origin, size) that is the page's main content. The
// readability cleaner puts the description first when its pick lacks it.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { squeezed } from './prose.js';

/** A description shorter than this (no whitespace) is a placeholder ("comment"), not the product's text. */
const MIN_DESCRIPTION_CHARS = 80;
/** The description's start, this long, found in the pick means the pick holds it. */
const PROBE_CHARS = 80;
/** Candidates looked at, at most: a page of thousands of items is no single product's page. */
const MAX_CANDIDATES = 16;
const PRODUCT_TYPE = /schema\.org\/Product\/?$/i;

/**
 * The element holding the description of the page's one product (microdata: itemprop="description" directly
 * in the one itemscope typed Product), when it has text of its own; null on pages of no product or several.
 */
export function productDescription($: CheerioAPI): Element | null {
  const products = $('[itemscope][itemtype]')
    .filter((_, element) => PRODUCT_TYPE.test(element.attribs.itemtype ?? ''))
    .slice(0, 2)
    .toArray();
  if (products.length !== 1) return null;
  const product = products[0]!;
  const candidates = $(product).find('[itemprop="description"]').slice(0, MAX_CANDIDATES).toArray();
  for (const candidate of candidates) {
    if (candidate.name === 'meta') continue;
    // The nearest itemscope above must be the product's: a review's description is the review's.
    const scope = $(candidate).parent().closest('[itemscope]').get(0);
    if (scope !== product) continue;
    if (squeezed($(candidate).text()).length >= MIN_DESCRIPTION_CHARS) return candidate;
  }
  return null;
}

/** Whether `text` (a pick's) already holds the description's start. */
export function holdsDescription($: CheerioAPI, description: Element, text: string): boolean {
  return squeezed(text).includes(squeezed($(description).text()).slice(0, PROBE_CHARS));
}
