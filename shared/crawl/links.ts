// Link discovery for crawls: which links of a page to follow, by CSS selector, URL pattern and the
// same-domain rule, and which is the next page. Pure (HTML in, URLs out); URLs are normalised so the same
// page is never queued twice. A page yields a bounded number of links, so the crawl activity's result stays
// far under Temporal's 2 MB payload limit however many links a hostile page holds.
import * as cheerio from 'cheerio';
import normalizeUrl from 'normalize-url';
import { compileUrlPattern, type UrlPattern } from './url-pattern.js';

export interface FollowRules {
  follow_selector?: string;
  follow_pattern?: string;
  next_selector?: string;
  same_domain_only: boolean;
}

export interface DiscoveredLink {
  url: string;
  kind: 'follow' | 'next';
}

/** Longer URLs are not followed: they are almost always traps (session ids, endless parameters). */
export const MAX_URL_LENGTH = 1000;
/** Distinct links (next and follow) a page yields at most: a listing rarely links more than a few hundred. */
export const MAX_LINKS_PER_PAGE = 500;
/**
 * Characters of URL a page yields at most, all links together (URLs are ASCII once normalised). 500 URLs of
 * 1,000 characters would be 0.5 MB; 256 KiB keeps the page's result and its crawl.discovered event at an
 * eighth of Temporal's 2 MB payload limit. At a typical 100 characters a URL, the count bound bites first.
 */
export const MAX_LINK_CHARS_PER_PAGE = 256 * 1024;
/**
 * follow_pattern work per page at most, in (URL characters × RE2 instructions): RE2 costs up to ~40 ns per
 * unit, so this is about a second in the worst case. A 50-instruction pattern still tests 500,000 characters
 * of URLs (some 5,000 links).
 */
export const MAX_PATTERN_WORK_PER_PAGE = 25_000_000;

/** One canonical form per page: no fragment, default ports and trailing slashes dropped, query sorted. */
export function normalizePageUrl(raw: string): string | null {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    const normalized = normalizeUrl(url.href, {
      stripHash: true,
      stripWWW: false,
      removeTrailingSlash: true,
      removeSingleSlash: true,
      sortQueryParameters: true,
      stripTextFragment: true,
      removeQueryParameters: [/^utm_\w+/i, 'fbclid', 'gclid'],
    });
    return normalized.length > MAX_URL_LENGTH ? null : normalized;
  } catch {
    return null;
  }
}

/** Same site: equal hostnames, ignoring a leading "www.". */
export function sameSite(a: string, b: string): boolean {
  const host = (u: string) => new URL(u).hostname.toLowerCase().replace(/^www\./, '');
  return host(a) === host(b);
}

function hrefsOf($: cheerio.CheerioAPI, selector: string): string[] {
  const out: string[] = [];
  $(selector).each((_, el) => {
    const node = $(el);
    // The selector may name the links themselves or elements that contain them.
    const anchors = node.is('a[href], area[href]') ? node : node.find('a[href], area[href]');
    anchors.each((_, a) => {
      const href = $(a).attr('href');
      if (href) out.push(href);
    });
  });
  return out;
}

export interface PageLinks {
  links: DiscoveredLink[];
  /** Links (hrefs) left unexamined because a bound was reached: 0 when the page was read whole. */
  dropped: number;
}

/** `html` may be the page already parsed (it is only read). Links past the bounds are dropped. */
export function discoverLinks(
  html: string | cheerio.CheerioAPI,
  pageUrl: string,
  rules: FollowRules,
  seedUrl: string,
): DiscoveredLink[] {
  return discoverPageLinks(html, pageUrl, rules, seedUrl).links;
}

/** discoverLinks, also saying how many links the bounds dropped (for the page's log line). */
export function discoverPageLinks(
  html: string | cheerio.CheerioAPI,
  pageUrl: string,
  rules: FollowRules,
  seedUrl: string,
): PageLinks {
  if (!rules.follow_selector && !rules.follow_pattern && !rules.next_selector)
    return { links: [], dropped: 0 };
  const $ = typeof html === 'string' ? cheerio.load(html) : html;
  const base = $('base[href]').attr('href');
  // A <base> that is not a URL is ignored, as browsers do.
  const resolveAgainst = (base && URL.canParse(base, pageUrl) && new URL(base, pageUrl).href) || pageUrl;
  const pattern = rules.follow_pattern ? compileUrlPattern(rules.follow_pattern) : null;
  const bounded = boundedLinks(pattern);
  // Pagination first: the next page continues the listing at the same depth, and survives the bound.
  const nextHrefs = rules.next_selector ? hrefsOf($, rules.next_selector) : [];
  // follow_selector picks links; follow_pattern filters them (or, alone, picks among all links).
  const followHrefs = rules.follow_selector
    ? hrefsOf($, rules.follow_selector)
    : rules.follow_pattern
      ? hrefsOf($, 'a[href]')
      : [];
  const candidates = [
    ...nextHrefs.map((href) => ({ href, kind: 'next' as const })),
    ...followHrefs.map((href) => ({ href, kind: 'follow' as const })),
  ];
  for (const [i, { href, kind }] of candidates.entries()) {
    const url = absoluteLink(href, resolveAgainst);
    if (!url || (rules.same_domain_only && !sameSite(url, seedUrl))) continue;
    if (!bounded.add(url, kind)) return { links: bounded.links, dropped: candidates.length - i };
  }
  return { links: bounded.links, dropped: 0 };
}

function absoluteLink(href: string, base: string): string | null {
  try {
    return normalizePageUrl(new URL(href, base).href);
  } catch {
    return null;
  }
}

/** The page's links so far, distinct; add() answers false once a bound is reached (the link is not added). */
function boundedLinks(pattern: UrlPattern | null) {
  /** Links taken or refused by the pattern: a repeated href costs nothing. */
  const seen = new Set<string>();
  const links: DiscoveredLink[] = [];
  let chars = 0;
  let work = 0;
  return {
    links,
    add(url: string, kind: DiscoveredLink['kind']): boolean {
      if (seen.has(url)) return true;
      if (links.length >= MAX_LINKS_PER_PAGE || chars + url.length > MAX_LINK_CHARS_PER_PAGE) return false;
      if (kind === 'follow' && pattern) {
        work += url.length * pattern.programSize;
        if (work > MAX_PATTERN_WORK_PER_PAGE) return false;
        seen.add(url);
        if (!pattern.test(url)) return true;
      }
      seen.add(url);
      links.push({ url, kind });
      chars += url.length;
      return true;
    },
  };
}
