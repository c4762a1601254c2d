// Reading a sitemap (XML urlset or sitemapindex, or the protocol's plain-text form): the <loc>s and their
// <lastmod>s, nothing else. htmlparser2's streaming parser in XML mode runs in linear time and builds no
// document; the text is fed in slices, with the deadline checked and the event loop released between them,
// so a large or hostile sitemap neither blocks heartbeats nor runs past the map's time budget.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Parser } from 'htmlparser2';
import { MAX_URL_LENGTH } from '../../shared/crawl/links.js';

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
  let value = '';
  let entry: Partial<SitemapEntry> = {};
  const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(name) {
        const tag = localName(name);
        if (tag === 'url' || tag === 'sitemap') {
          container = tag;
          entry = {};
        } else if (container && (tag === 'loc' || tag === 'lastmod')) {
          field = tag;
          value = '';
        }
      },
      ontext(text) {
        if (field && value.length < MAX_FIELD_CHARS) value += text.slice(0, MAX_FIELD_CHARS - value.length);
      },
      onclosetag(name) {
        const tag = localName(name);
        if (field && tag === field) {
          entry[field] = value.trim();
          field = null;
        } else if (container && tag === container) {
          if (entry.loc) {
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
  for (let at = 0; at < text.length; at += SLICE_CHARS) {
    if (reading.pages.length + reading.sitemaps.length >= opts.maxEntries) {
      return { ...reading, stopped: 'entries' };
    }
    if (Date.now() > opts.deadline) return { ...reading, stopped: 'deadline' };
    parser.write(text.slice(at, at + SLICE_CHARS));
    await yieldToLoop();
  }
  parser.end();
  const over = reading.pages.length + reading.sitemaps.length - opts.maxEntries;
  if (over > 0) {
    // The last slice may have carried a few past the bound.
    reading.pages.splice(Math.max(0, reading.pages.length - over));
    return { ...reading, stopped: 'entries' };
  }
  return reading;
}
