// The URLs a map lists: normalised as crawls normalise links, on the site by the crawl's same-domain rule
// (subdomains only when asked), matching the search words, allowed by robots.txt, distinct, and bounded by
// the request's limit and by MAP_MAX_URL_CHARS. Only listed URLs are remembered, so memory stays bounded
// however many entries hostile sitemaps hold.
import { isIP } from 'node:net';
import { normalizePageUrl, sameSite } from '../../../shared/crawl/links.js';
import { MAP_MAX_URL_CHARS, type MapUrl, type MapUrlSource } from '../../../shared/schemas/map.js';

export interface CollectorOptions {
  seedUrl: string;
  limit: number;
  includeSubdomains: boolean;
  search?: string | null;
  ignoreQuery: boolean;
  /** robots.txt's word on listing a URL (always true when robots.txt is not respected). */
  allowed: (url: string) => Promise<boolean>;
}

export class UrlCollector {
  readonly urls: MapUrl[] = [];
  /** A URL that belonged in the list was left out by the limit or the size bound. */
  truncated = false;
  private readonly listed = new Set<string>();
  private chars = 0;
  private readonly terms: string[];
  private readonly seedHost: string;

  constructor(private readonly opts: CollectorOptions) {
    this.terms = (opts.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    this.seedHost = siteHost(opts.seedUrl);
  }

  /** Whether the list is complete: nothing more can be added. */
  get full(): boolean {
    return this.truncated;
  }

  /** The URL a raw link or <loc> stands for, as listed (normalised, query dropped when asked), or null. */
  normalise(raw: string): string | null {
    const url = normalizePageUrl(raw.trim());
    if (!url || !this.opts.ignoreQuery) return url;
    const bare = new URL(url);
    bare.search = '';
    return normalizePageUrl(bare.href);
  }

  /** On the site: the start host (with or without "www."), or one of its subdomains when asked. */
  onSite(url: string): boolean {
    if (sameSite(url, this.opts.seedUrl)) return true;
    if (!this.opts.includeSubdomains || isIP(this.seedHost.replace(/^\[|\]$/g, ''))) return false;
    return siteHost(url).endsWith(`.${this.seedHost}`);
  }

  async add(raw: string, source: MapUrlSource, lastmod?: string): Promise<void> {
    if (this.truncated) return;
    const url = this.normalise(raw);
    if (!url || this.listed.has(url) || !this.onSite(url) || !this.matches(url)) return;
    if (!(await this.opts.allowed(url)) || this.truncated || this.listed.has(url)) return;
    if (this.urls.length >= this.opts.limit || this.chars + url.length > MAP_MAX_URL_CHARS) {
      this.truncated = true;
      return;
    }
    this.listed.add(url);
    this.chars += url.length;
    const when = lastmod === undefined ? null : timestampOf(lastmod);
    this.urls.push({ url, source, ...(when ? { lastmod: when } : {}) });
  }

  has(url: string): boolean {
    return this.listed.has(url);
  }

  /** Every search word occurs in the URL (as written or percent-decoded), case-insensitively. */
  private matches(url: string): boolean {
    if (this.terms.length === 0) return true;
    const lower = url.toLowerCase();
    const decoded = percentDecoded(lower);
    return this.terms.every((t) => lower.includes(t) || decoded.includes(t));
  }
}

function siteHost(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
}

function percentDecoded(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** A sitemap's <lastmod> (W3C datetime) as an RFC 3339 UTC timestamp, or null when it is not a date. */
export function timestampOf(lastmod: string): string | null {
  if (lastmod.length > 64 || !/^\d{4}-\d{2}-\d{2}/.test(lastmod)) return null;
  const ms = Date.parse(lastmod);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
