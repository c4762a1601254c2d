// A map's sitemap source: the sitemaps robots.txt names (else /sitemap.xml), sitemap indexes followed breadth
// first, gzip read (.xml.gz files and gzip content-encoding alike). Sitemaps are hostile input: each is fetched
// through the guarded fetch with a byte bound, decompressed with the same bound (a gzip bomb stops there, as
// content_too_large), read by a linear-time parser with an entry bound; files, nesting and total bytes are
// bounded too. A sitemap that fails is a warning and the map goes on without it.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { CategorizedError } from '../../../shared/errors.js';
import { type GuardedResponse, guardedFetch } from '../../../shared/net/guarded-fetch.js';
import {
  MAX_SITEMAP_DEPTH,
  MAX_SITEMAP_ENTRIES,
  MAX_SITEMAPS,
  SITEMAP_MAX_BYTES,
  SITEMAP_TOTAL_MAX_BYTES,
} from '../../../shared/schemas/map.js';
import { robotsSitemaps } from '../../fetching/robots.js';
import type { MapRun } from './map-run.js';
import { readSitemap, type SitemapReading } from './sitemap-xml.js';

const gunzipAsync = promisify(gunzip);
const ACCEPT = 'application/xml,text/xml;q=0.9,application/gzip;q=0.8,text/plain;q=0.7,*/*;q=0.5';

interface Pending {
  url: string;
  depth: number;
  /** /sitemap.xml tried because robots.txt names none: its absence is no warning. */
  guessed: boolean;
}

export async function readSitemaps(run: MapRun): Promise<void> {
  const named = (await robotsSitemaps(run.opts.url, run.robotsOptions())).map(httpUrl);
  const roots = named.filter((u): u is string => u !== null);
  const queue: Pending[] =
    roots.length > 0
      ? roots.map((url) => ({ url, depth: 0, guessed: false }))
      : [{ url: `${new URL(run.opts.url).origin}/sitemap.xml`, depth: 0, guessed: true }];
  const queued = new Set(queue.map((p) => p.url));
  for (let next = queue.shift(); next && !run.done; next = queue.shift()) {
    if (run.sitemapsRead >= MAX_SITEMAPS || run.sitemapBytes >= SITEMAP_TOTAL_MAX_BYTES) {
      const bound = run.sitemapsRead >= MAX_SITEMAPS ? `${MAX_SITEMAPS} sitemaps` : 'the sitemap byte bound';
      run.warn(next.url, 'content_too_large', `${bound} read already: ${queue.length + 1} more not read`);
      return;
    }
    const reading = await readOne(run, next);
    if (!reading) continue;
    for (const [i, page] of reading.pages.entries()) {
      await run.collector.add(page.loc, 'sitemap', page.lastmod);
      if (run.collector.full) return;
      // Listing is synchronous work between robots lookups: let heartbeats out now and then.
      if (i % 2000 === 1999) await yieldToLoop();
    }
    if (reading.sitemaps.length > 0 && next.depth >= MAX_SITEMAP_DEPTH) {
      run.warn(
        next.url,
        'content_too_large',
        `sitemap indexes nested deeper than ${MAX_SITEMAP_DEPTH}: not read`,
      );
      continue;
    }
    for (const child of reading.sitemaps) {
      const url = httpUrl(child.loc);
      if (url === null || queued.has(url) || queued.size >= MAX_SITEMAPS * 4) continue;
      queued.add(url);
      queue.push({ url, depth: next.depth + 1, guessed: false });
    }
  }
}

async function readOne(run: MapRun, sitemap: Pending): Promise<SitemapReading | null> {
  const { url } = sitemap;
  if (!(await run.mayFetch(url))) return null;
  try {
    const res = await guardedFetch({ ...run.request(url, SITEMAP_MAX_BYTES), headers: { accept: ACCEPT } });
    run.sitemapsRead += 1;
    if (res.status < 200 || res.status >= 300) {
      if (!(sitemap.guessed && (res.status === 404 || res.status === 410)))
        run.warn(url, 'http_status', `the sitemap answered HTTP ${res.status}`);
      return null;
    }
    const body = await decompressed(res);
    run.sitemapBytes += body.length;
    const reading = await readSitemap(body.toString('utf8'), {
      deadline: run.deadline,
      maxEntries: MAX_SITEMAP_ENTRIES,
    });
    if (reading.stopped === 'entries')
      run.warn(
        url,
        'content_too_large',
        `the sitemap holds more than ${MAX_SITEMAP_ENTRIES} entries: the rest are not read`,
      );
    return reading;
  } catch (err) {
    run.warnError(url, err);
    return null;
  }
}

/** The body as XML or text: gunzipped (at most twice: a .xml.gz also sent with gzip content-encoding). */
export async function decompressed(res: Pick<GuardedResponse, 'headers' | 'body'>): Promise<Buffer> {
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (!['', 'identity', 'gzip', 'x-gzip'].includes(encoding))
    throw new CategorizedError(
      'unsupported_content',
      `the sitemap is sent ${encoding}-encoded, which is not read`,
    );
  let body = res.body;
  for (let layer = 0; layer < 2 && isGzip(body); layer++) body = await gunzipBounded(body);
  return body;
}

const isGzip = (body: Buffer) => body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;

async function gunzipBounded(body: Buffer): Promise<Buffer> {
  try {
    return await gunzipAsync(body, { maxOutputLength: SITEMAP_MAX_BYTES });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new CategorizedError(
        'content_too_large',
        `the sitemap decompresses to more than ${SITEMAP_MAX_BYTES} bytes: not read`,
        false,
        { maxBytes: SITEMAP_MAX_BYTES, compressedBytes: body.length },
      );
    throw new CategorizedError(
      'unsupported_content',
      `the sitemap's gzip data is not readable: ${(err as Error).message}`,
    );
  }
}

function httpUrl(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
