// A map's link source: the start page's links and, while the list has room, those of up to MAX_WALK_PAGES
// pages it links to on the site. Pages are fetched statically (no browser) through the guarded fetch; links
// are read by htmlparser2's streaming parser (linear time, fed in slices against the deadline) and resolved
// and normalised as crawls do (<base href>, normalizePageUrl, the same per-page bounds).
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Parser } from 'htmlparser2';
import {
  MAX_LINK_CHARS_PER_PAGE,
  MAX_LINKS_PER_PAGE,
  normalizePageUrl,
} from '../../../shared/crawl/links.js';
import { CategorizedError } from '../../../shared/errors.js';
import { MAX_WALK_PAGES } from '../../../shared/schemas/map.js';
import { fetchStatic } from '../../fetching/fetch-static.js';
import type { MapRun } from './map-run.js';

const SLICE_CHARS = 64 * 1024;
/** hrefs kept from one page before resolving them: a page of a million links costs no more than this. */
const MAX_RAW_HREFS = 20 * MAX_LINKS_PER_PAGE;

/** Reads the start page and a level below it; answers the start page's failure, if it failed. */
export async function walkLinks(run: MapRun): Promise<CategorizedError | null> {
  const start = await readPage(run, run.opts.url);
  if ('error' in start) return start.error;
  await run.collector.add(run.opts.url, 'links');
  for (const link of start.links) {
    if (run.done) return null;
    await run.collector.add(link, 'links');
  }
  const self = new Set([run.collector.normalise(run.opts.url), run.collector.normalise(start.finalUrl)]);
  const below = start.links.filter((url) => !self.has(url) && run.collector.onSite(url));
  for (const url of below.slice(0, MAX_WALK_PAGES)) {
    if (run.done) return null;
    const page = await readPage(run, url);
    if ('error' in page) continue;
    for (const link of page.links) {
      if (run.done) return null;
      await run.collector.add(link, 'links');
    }
  }
  return null;
}

type PageReading = { finalUrl: string; links: string[] } | { error: CategorizedError };

async function readPage(run: MapRun, url: string): Promise<PageReading> {
  if (!(await run.mayFetch(url)))
    return { error: new CategorizedError('robots_disallowed', `robots.txt disallows ${url}`) };
  try {
    const doc = await fetchStatic(url, {
      timeoutMs: run.fetchTimeoutMs(),
      maxBytes: run.config.FETCH_MAX_BYTES,
      maxRedirects: run.config.FETCH_MAX_REDIRECTS,
      policy: run.policy,
      signal: run.signal,
    });
    run.pagesRead += 1;
    if (doc.status >= 400) {
      const error = new CategorizedError('http_status', `the page answered HTTP ${doc.status}`);
      run.warnError(url, error);
      return { error };
    }
    const html = doc.contentType === 'text/html' || doc.contentType === 'application/xhtml+xml';
    return { finalUrl: doc.url, links: html ? await pageLinks(doc.body, doc.url, run.deadline) : [] };
  } catch (err) {
    run.warnError(url, err);
    const error =
      err instanceof CategorizedError
        ? err
        : new CategorizedError('unknown', err instanceof Error ? err.message : String(err));
    return { error };
  }
}

/** The page's distinct links (a and area hrefs) as absolute, normalised URLs, within the crawl's bounds. */
export async function pageLinks(html: string, pageUrl: string, deadline: number): Promise<string[]> {
  const hrefs: string[] = [];
  let base: string | undefined;
  const parser = new Parser({
    onopentag(name, attribs) {
      if ((name === 'a' || name === 'area') && attribs.href && hrefs.length < MAX_RAW_HREFS)
        hrefs.push(attribs.href);
      else if (name === 'base' && base === undefined && attribs.href) base = attribs.href;
    },
  });
  for (let at = 0; at < html.length && Date.now() < deadline; at += SLICE_CHARS) {
    parser.write(html.slice(at, at + SLICE_CHARS));
    await yieldToLoop();
  }
  parser.end();
  // A <base> that is not a URL is ignored, as browsers (and the crawl) do.
  const against = (base && URL.canParse(base, pageUrl) && new URL(base, pageUrl).href) || pageUrl;
  const links = new Set<string>();
  let chars = 0;
  for (const href of hrefs) {
    const url = URL.canParse(href, against) ? normalizePageUrl(new URL(href, against).href) : null;
    if (!url || links.has(url)) continue;
    if (links.size >= MAX_LINKS_PER_PAGE || chars + url.length > MAX_LINK_CHARS_PER_PAGE) break;
    links.add(url);
    chars += url.length;
  }
  return [...links];
}
