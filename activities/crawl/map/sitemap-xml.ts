// Reading a sitemap (XML urlset or sitemapindex, or the protocol's plain-text form): the <loc>s and their
// <lastmod>s, nothing else. htmlparser2's streaming parser in XML mode runs in linear time and builds no
// document; the text is fed in slices, with the deadline checked and the event loop released between them,
// so a large or hostile sitemap neither blocks heartbeats nor runs past the map's time budget.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Parser } from 'htmlparser2';
import { MAX_URL_LENGTH } from '../../../shared/crawl/links.js';

export interface SitemapEntry {
  loc: string;
  lastmod?: string;
}

export interface SitemapReading {
  /** <url> entries: pages. */
  pages: SitemapEntry[];
  /** <sitemap> entries of a sitemap index: more sitemaps. */
  sitemaps: SitemapEntry[];
  /** Why reading stopped before the end: too many entries, or the deadline. */
  stopped: 'entries' | 'deadline' | null;
}

export interface ReadOptions {
  /** Epoch ms past which reading stops. */
  deadline: number;
  maxEntries: number;
}

const SLICE_CHARS = 64 * 1024;
/** Text kept of one <loc> or <lastmod>: longer URLs are not listed anyway. */
const MAX_FIELD_CHARS = MAX_URL_LENGTH + 64;

export async function readSitemap(text: string, opts: ReadOptions): Promise<SitemapReading> {
  const firstTag = /^\s*</.test(text.slice(0, 1024).replace(/^\uFEFF/, ''));
  return firstTag ? readXml(text, opts) : readPlainText(text, opts);
}

/** The protocol's text form: one URL per line. */
async function readPlainText(text: string, opts: ReadOptions): Promise<SitemapReading> {
  const reading: SitemapReading = { pages: [], sitemaps: [], stopped: null };
  let from = 0;
  let yielded = 0;
  while (from < text.length) {
    if (reading.pages.length >= opts.maxEntries) return { ...reading, stopped: 'entries' };
    if (Date.now() > opts.deadline) return { ...reading, stopped: 'deadline' };
    let to = text.indexOf('\n', from);
    if (to === -1) to = text.length;
    const line = to - from <= MAX_FIELD_CHARS ? text.slice(from, to).trim() : '';
    if (/^https?:\/\//i.test(line)) reading.pages.push({ loc: line });
    from = to + 1;
    if (from - yielded >= SLICE_CHARS) {
      yielded = from;
      await yieldToLoop();
    }
  }
  return reading;
}

async function readXml(text: string, opts: ReadOptions): Promise<SitemapReading> {
  const reading: SitemapReading = { pages: [], sitemaps: [], stopped: null };
  let container: 'url' | 'sitemap' | null = null;
  let field: 'loc' | 'lastmod' | null = null;
  // Only the container's own children count: an <image:loc> inside a <url> is not the page's.
  let depth = 0;
  let containerDepth = 0;
  let value = '';
  let entry: Partial<SitemapEntry> = {};
  const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(name) {
        depth += 1;
        const tag = localName(name);
        if (!container && (tag === 'url' || tag === 'sitemap')) {
          container = tag;
          containerDepth = depth;
          entry = {};
        } else if (container && depth === containerDepth + 1 && (tag === 'loc' || tag === 'lastmod')) {
          field = tag;
          value = '';
        }
      },
      ontext(text) {
        if (field && value.length < MAX_FIELD_CHARS) value += text.slice(0, MAX_FIELD_CHARS - value.length);
      },
      onclosetag(name) {
        depth -= 1;
        const tag = localName(name);
        if (field && tag === field && depth === containerDepth) {
          entry[field] = value.trim();
          field = null;
        } else if (container && depth < containerDepth) {
          if (entry.loc && reading.pages.length + reading.sitemaps.length >= opts.maxEntries) {
            reading.stopped = 'entries';
          } else if (entry.loc) {
            const found: SitemapEntry = {
              loc: entry.loc,
              ...(entry.lastmod ? { lastmod: entry.lastmod } : {}),
            };
            (container === 'url' ? reading.pages : reading.sitemaps).push(found);
          }
          container = null;
          field = null;
        }
      },
    },
    { xmlMode: true },
  );
  for (let at = 0; at < text.length && reading.stopped === null; at += SLICE_CHARS) {
    if (Date.now() > opts.deadline) return { ...reading, stopped: 'deadline' };
    parser.write(text.slice(at, at + SLICE_CHARS));
    await yieldToLoop();
  }
  if (reading.stopped === null) parser.end();
  return reading;
}
