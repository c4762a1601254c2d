// Link discovery for crawls: which links of a page to follow, by CSS selector, URL pattern and the
// same-domain rule, and which is the next page. Pure (HTML in, URLs out); URLs are normalised so the same
// page is never queued twice.
import * as cheerio from 'cheerio';
import normalizeUrl from 'normalize-url';

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

/** `html` may be the page already parsed (it is only read). */
export function discoverLinks(
  html: string | cheerio.CheerioAPI,
  pageUrl: string,
  rules: FollowRules,
  seedUrl: string,
): DiscoveredLink[] {
  if (!rules.follow_selector && !rules.follow_pattern && !rules.next_selector) return [];
  const $ = typeof html === 'string' ? cheerio.load(html) : html;
  const base = $('base[href]').attr('href');
  const resolveAgainst = base ? new URL(base, pageUrl).href : pageUrl;
  const pattern = rules.follow_pattern ? new RegExp(rules.follow_pattern) : null;
  const seen = new Set<string>();
  const out: DiscoveredLink[] = [];
  const add = (href: string, kind: DiscoveredLink['kind'], filterByPattern: boolean) => {
    let absolute: string;
    try {
      absolute = new URL(href, resolveAgainst).href;
    } catch {
      return;
    }
    const url = normalizePageUrl(absolute);
    if (!url || seen.has(url)) return;
    if (rules.same_domain_only && !sameSite(url, seedUrl)) return;
    if (filterByPattern && pattern && !pattern.test(url)) return;
    seen.add(url);
    out.push({ url, kind });
  };
  // Pagination first: the next page continues the listing at the same depth.
  if (rules.next_selector) for (const href of hrefsOf($, rules.next_selector)) add(href, 'next', false);
  // follow_selector picks links; follow_pattern filters them (or, alone, picks among all links).
  const followHrefs = rules.follow_selector
    ? hrefsOf($, rules.follow_selector)
    : rules.follow_pattern
      ? hrefsOf($, 'a[href]')
      : [];
  for (const href of followHrefs) add(href, 'follow', true);
  return out;
}
