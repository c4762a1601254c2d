// Follow patterns: the page's same-site links grouped by URL shape into regular expressions (numeric parts
// become \d+, parts that vary within a group [^/]+), each with real sample URLs that match it. Pure, and
// linear in the page's links, of which the first MAX_ANALYZED_LINKS count. The patterns are offered as crawl
// follow_patterns, so each is checked (and run) on RE2 as a crawl would, and dropped if a crawl would refuse it.
import type { CheerioAPI } from 'cheerio';
import { normalizePageUrl, sameSite } from '../../../shared/crawl/links.js';
import { compileUrlPattern, urlPatternProblem } from '../../../shared/crawl/url-pattern.js';
import { absoluteUrl, baseOf } from './pagination.js';
import { CHROME } from './repeated-blocks.js';

export type LinkRole = 'item' | 'pagination' | 'navigation' | 'content';

export interface PageLink {
  url: string;
  role: LinkRole;
}

export interface PatternDraft {
  pattern: string;
  description: string;
  sample_urls: string[];
  /** Links on the page that match. */
  count: number;
  /** What most of its links are. */
  role: LinkRole;
}

const ROLE_RANK: Record<LinkRole, number> = { item: 0, pagination: 1, content: 2, navigation: 3 };
const MAX_SAMPLES = 5;
/** Distinct links of a page that analyze considers at most: the rest add nothing to the URL shapes. */
export const MAX_ANALYZED_LINKS = 2000;

/** Same-site links of the page, once each, with what they are (item, pagination, navigation, content). */
export function collectLinks(
  $: CheerioAPI,
  pageUrl: string,
  itemSelector: string | null,
  paginationUrls: Set<string>,
): PageLink[] {
  const base = baseOf($, pageUrl);
  const self = normalizePageUrl(pageUrl);
  const links = new Map<string, LinkRole>();
  for (const a of $('a[href]').toArray()) {
    const url = absoluteUrl(a.attribs.href, base);
    if (!url || url === self || !sameSite(url, pageUrl)) continue;
    if (links.size >= MAX_ANALYZED_LINKS && !links.has(url)) break;
    const role: LinkRole = paginationUrls.has(url)
      ? 'pagination'
      : itemSelector && $(a).closest(itemSelector).length > 0
        ? 'item'
        : $(a).closest(CHROME).length > 0
          ? 'navigation'
          : 'content';
    const known = links.get(url);
    if (!known || ROLE_RANK[role] < ROLE_RANK[known]) links.set(url, role);
  }
  return [...links].map(([url, role]) => ({ url, role }));
}

export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

interface Parsed {
  link: PageLink;
  origin: string;
  segments: string[];
  query: [string, string][];
}

function parse(link: PageLink): Parsed {
  const url = new URL(link.url);
  return {
    link,
    origin: url.origin,
    segments: url.pathname.split('/').filter((s) => s !== ''),
    // Raw pairs as the URL spells them, so a literal part matches the URL text exactly.
    query: url.search
      .slice(1)
      .split('&')
      .filter((kv) => kv !== '')
      .map((kv) => {
        const at = kv.indexOf('=');
        return at === -1 ? [kv, ''] : [kv.slice(0, at), kv.slice(at + 1)];
      }),
  };
}

/** One regex part for the values a position takes in a group: literal if constant, else generalised. */
function partFor(values: string[], regexOf: (v: string) => string): string {
  if (values.every((v) => /^\d+$/.test(v))) return '\\d+';
  const distinct = new Set(values);
  return distinct.size === 1 ? regexOf(values[0] ?? '') : '[^/?&#]+';
}

/** With `literal` false, every part that is not numeric is generalised (for shapes too long to spell out). */
function patternOf(group: Parsed[], literal = true): string {
  const [first] = group;
  if (!first) return '';
  const regexOf = (v: string) => (literal ? escapeRegex(v) : '[^/?&#]+');
  const path = first.segments.map((_, i) =>
    partFor(
      group.map((p) => p.segments[i] ?? ''),
      regexOf,
    ),
  );
  const query = first.query.map(([key], i) => {
    const value = partFor(
      group.map((p) => p.query[i]?.[1] ?? ''),
      regexOf,
    );
    return `${escapeRegex(key)}=${value === '[^/?&#]+' ? '[^&#]*' : value}`;
  });
  return `^${escapeRegex(first.origin)}${path.map((p) => `\\/${p}`).join('')}${
    query.length ? `\\?${query.join('&')}` : ''
  }$`;
}

/** Links grouped by origin, path length, first path segment and query keys: one group per URL shape. */
export function groupPatterns(links: PageLink[], max = 8): PatternDraft[] {
  const groups = new Map<string, Parsed[]>();
  for (const link of links.slice(0, MAX_ANALYZED_LINKS)) {
    const parsed = parse(link);
    const [head = ''] = parsed.segments;
    const key = [
      parsed.origin,
      parsed.segments.length,
      /^\d+$/.test(head) ? '#' : head,
      parsed.query.map(([k]) => k).join('&'),
    ].join(' ');
    const group = groups.get(key);
    if (group) group.push(parsed);
    else groups.set(key, [parsed]);
  }
  const drafts = [...groups.values()]
    .map(toDraft)
    .filter((d): d is PatternDraft => d !== null)
    .filter((d) => d.count >= 2 || d.role === 'item' || d.role === 'pagination');
  return drafts
    .filter((d) => d.sample_urls.length > 0)
    .sort((a, b) => ROLE_RANK[a.role] - ROLE_RANK[b.role] || b.count - a.count)
    .slice(0, max);
}

/** The group's pattern as a crawl accepts it: spelled out, else generalised; null if neither is accepted. */
function crawlablePattern(group: Parsed[]): string | null {
  for (const pattern of [patternOf(group), patternOf(group, false)])
    if (pattern && urlPatternProblem(pattern) === null) return pattern;
  return null;
}

function toDraft(group: Parsed[]): PatternDraft | null {
  const pattern = crawlablePattern(group);
  if (!pattern) return null;
  const regex = compileUrlPattern(pattern);
  const roles = new Map<LinkRole, number>();
  for (const p of group) roles.set(p.link.role, (roles.get(p.link.role) ?? 0) + 1);
  const role =
    [...roles].sort((a, b) => b[1] - a[1] || ROLE_RANK[a[0]] - ROLE_RANK[b[0]])[0]?.[0] ?? 'content';
  const urls = group.map((p) => p.link.url);
  // Every sample matches its pattern: checked here (on RE2, as a crawl runs it), not assumed.
  const samples: string[] = [];
  for (const url of urls) {
    if (samples.length >= MAX_SAMPLES) break;
    if (regex.test(url)) samples.push(url);
  }
  return {
    pattern,
    description: describeRole(role, urls.length, urls[0] ?? ''),
    sample_urls: samples,
    count: urls.length,
    role,
  };
}

function describeRole(role: LinkRole, count: number, example: string): string {
  const like = `${count} link${count === 1 ? '' : 's'} like ${new URL(example).pathname}${new URL(example).search}`;
  switch (role) {
    case 'item':
      return `item pages linked from each repeated item, likely detail pages (${like})`;
    case 'pagination':
      return `pagination: further pages of this listing (${like})`;
    case 'navigation':
      return `site navigation: section pages (${like})`;
    default:
      return `links in the page content (${like})`;
  }
}

/** A handful of real links of the page, item links first. */
export function sampleLinks(links: PageLink[], max = 10): string[] {
  return [...links]
    .sort((a, b) => ROLE_RANK[a.role] - ROLE_RANK[b.role])
    .slice(0, max)
    .map((l) => l.url);
}
