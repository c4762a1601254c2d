// Pagination links: rel=next/prev, "next" links, page-number links and whatever a pagination container holds.
// Pure: a parsed page in, the distinct page URLs (normalised, absolute) and the selectors that found them.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { normalizePageUrl } from '../../../shared/crawl/links.js';
import { signature } from './repeated-blocks.js';

export interface Pagination {
  /** Distinct normalised URLs of other pages of this listing (the page itself left out). */
  urls: string[];
  /** The selectors that matched, joined with ", ": usable as a crawl next_selector. */
  selector: string;
}

const CONTAINERS = [
  '.pagination',
  '.pager',
  '.paging',
  'nav[aria-label*="pagination" i]',
  '[role="navigation"][aria-label*="page" i]',
];
const REL = 'a[rel~="next"], a[rel~="prev"]';
const NEXT_TEXT = /^(next( page)?|older( posts| entries)?|more results|[›»→>]|next\s*[›»→>])$/i;
const PAGE_NUMBER = /^\d{1,4}$/;
const PAGE_HREF = /[?&](page|p|pg|pagenum|offset|start)=\d+|\/page\/\d+|\/p\d+\b/i;

/** Absolute, normalised form of an href on this page; null for non-page links. */
export function absoluteUrl(href: string | undefined, base: string): string | null {
  if (!href || href.startsWith('#') || /^(javascript|mailto|tel):/i.test(href)) return null;
  try {
    return normalizePageUrl(new URL(href, base).href);
  } catch {
    return null;
  }
}

/** The URL links resolve against: a <base href> when the page has one. */
export function baseOf($: CheerioAPI, pageUrl: string): string {
  const base = $('base[href]').attr('href');
  try {
    return base ? new URL(base, pageUrl).href : pageUrl;
  } catch {
    return pageUrl;
  }
}

function isPageLink($: CheerioAPI, a: Element): boolean {
  const text = $(a).text().replace(/\s+/g, ' ').trim();
  const label = `${a.attribs['aria-label'] ?? ''} ${a.attribs.class ?? ''}`;
  if (NEXT_TEXT.test(text) || /\bnext\b/i.test(label)) return true;
  return PAGE_NUMBER.test(text) && PAGE_HREF.test(a.attribs.href ?? '');
}

/** `a.classes` when the link has classes, else the link by its href (a bare `a` would match every link). */
function anchorSelector(a: Element): string {
  const sig = signature(a);
  return sig.includes('.') ? sig : `a[href=${JSON.stringify(a.attribs.href ?? '')}]`;
}

export function findPagination($: CheerioAPI, pageUrl: string): Pagination {
  const base = baseOf($, pageUrl);
  const self = normalizePageUrl(pageUrl);
  const found = new Set<string>();
  const selectors: string[] = [];
  const take = (selector: string, anchors: Element[]) => {
    const urls = anchors.map((a) => absoluteUrl(a.attribs.href, base)).filter((u) => u !== null);
    if (urls.length === 0) return;
    selectors.push(selector);
    for (const url of urls) if (url !== self) found.add(url);
  };
  for (const container of CONTAINERS)
    take(`${container} a[href]`, $<Element, string>(`${container} a[href]`).toArray());
  take(REL, $(REL).toArray());
  const loose = $('a[href]')
    .toArray()
    .filter((a) => $(a).closest(CONTAINERS.join(', ')).length === 0 && isPageLink($, a));
  const looseSelectors = new Set(loose.map((a) => anchorSelector(a)));
  if (loose.length > 0) take([...looseSelectors].join(', '), loose);
  return { urls: [...found], selector: selectors.join(', ') };
}
