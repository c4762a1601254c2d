// The page type the structure suggests, with the evidence for it. The model later confirms it or picks
// another type from the same enum; these rules are the fallback and the evidence it is shown. Pure.
import type { PageTypeSchema } from '../../../shared/schemas/analyze.js';
import type { PageCounts } from './elements.js';

export type PageType = (typeof PageTypeSchema)['options'][number];

export interface PageEvidence {
  url: string;
  counts: PageCounts;
  /** Members of the main repeated block (0 without one) and how many of them carry links. */
  items: number;
  itemsWithLinks: number;
  paginationLinks: number;
}

export interface PageTypeGuess {
  type: PageType;
  reason: string;
}

const SEARCH_PARAMS = /[?&](q|query|search|s|keywords?)=/i;
const LONG_TEXT = 1500;

export function guessPageType(e: PageEvidence): PageTypeGuess {
  const c = e.counts;
  const linkedItems = e.items >= 3 && e.itemsWithLinks * 4 >= e.items * 3;
  if (linkedItems && (e.items >= 5 || e.paginationLinks > 0)) {
    const reason = `${e.items} repeated items with links${e.paginationLinks ? ' and pagination' : ''}`;
    return SEARCH_PARAMS.test(e.url)
      ? { type: 'search_results', reason: `${reason}, and the URL holds a search query` }
      : { type: 'listing', reason };
  }
  if (c.prices >= 1 && c.prices <= 3 && c.h1 === 1)
    return { type: 'product', reason: `one item (one h1) with ${c.prices} price${c.prices > 1 ? 's' : ''}` };
  if ((c.articles > 0 || c.dates > 0) && c.paragraphChars >= LONG_TEXT)
    return {
      type: 'article',
      reason: `${c.paragraphChars} characters of paragraph text with an article or date`,
    };
  if (c.codeBlocks >= 2 && c.headings >= 2)
    return { type: 'documentation', reason: `${c.codeBlocks} code blocks under ${c.headings} headings` };
  if (c.formFields >= 3 && c.paragraphChars < 500)
    return { type: 'form', reason: `a form with ${c.formFields} fields and little text` };
  if (linkedItems) return { type: 'listing', reason: `${e.items} repeated items with links` };
  if (new URL(e.url).pathname === '/' && c.headings >= 2)
    return { type: 'homepage', reason: 'the site root, with several sections' };
  if (c.h1 === 1 && c.paragraphChars >= 300)
    return { type: 'detail', reason: 'one titled item with descriptive text' };
  return { type: 'other', reason: 'no listing, product, article, documentation or form structure' };
}

/** Detail-like pages (one item) versus listing-like pages (many), for classifying linked pages. */
export function pageKind(type: PageType): 'detail' | 'listing' | 'other' {
  if (type === 'product' || type === 'article' || type === 'detail') return 'detail';
  if (type === 'listing' || type === 'search_results') return 'listing';
  return 'other';
}
