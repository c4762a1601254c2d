// Follow patterns: the page's same-site links grouped by URL shape into regular expressions (numeric parts
// become \d+, parts that vary within a group [^/]+), each with real sample URLs that match it. Pure.
import type { CheerioAPI } from 'cheerio';
import { normalizePageUrl, sameSite } from '../../shared/crawl/links.js';
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

function patternOf(group: Parsed[]): string {
  const [first] = group;
  if (!first) return '';
  const path = first.segments.map((_, i) =>
    partFor(
      group.map((p) => p.segments[i] ?? ''),
      (v) => escapeRegex(v),
    ),
  );
  const query = first.query.map(([key], i) => {
    const value = partFor(
      group.map((p) => p.query[i]?.[1] ?? ''),
      (v) => escapeRegex(v),
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
  for (const parsed of links.map(parse)) {
    const [head = ''] = parsed.segments;
    const key = [
      parsed.origin,
      parsed.segments.length,
      /^\d+$/.test(head) ? '#' : head,
      parsed.query.map(([k]) => k).join('&'),
    ].join(' ');
    groups.set(key, [...(groups.get(key) ?? []), parsed]);
  }
  const drafts = [...groups.values()]
    .map(toDraft)
    .filter((d) => d.count >= 2 || d.role === 'item' || d.role === 'pagination');
  return drafts
    .filter((d) => d.sample_urls.length > 0)
    .sort((a, b) => ROLE_RANK[a.role] - ROLE_RANK[b.role] || b.count - a.count)
    .slice(0, max);
}

function toDraft(group: Parsed[]): PatternDraft {
  const pattern = patternOf(group);
  const regex = new RegExp(pattern);
  const roles = new Map<LinkRole, number>();
  for (const p of group) roles.set(p.link.role, (roles.get(p.link.role) ?? 0) + 1);
  const role =
    [...roles].sort((a, b) => b[1] - a[1] || ROLE_RANK[a[0]] - ROLE_RANK[b[0]])[0]?.[0] ?? 'content';
  const urls = group.map((p) => p.link.url);
  return {
    pattern,
    description: describeRole(role, urls.length, urls[0] ?? ''),
    // Every sample matches its pattern: checked here, not assumed.
    sample_urls: urls.filter((u) => regex.test(u)).slice(0, MAX_SAMPLES),
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
