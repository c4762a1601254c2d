// robots.txt, fetched through the guarded fetch once per origin and kept for a while in worker memory, read
// as RFC 9309 says: a 4xx means no rules (allow all); a 5xx or an unreachable server means disallow all; only
// the first 500 KiB are read and parsed. The cache is bounded by bytes, not by origins.
import { LRUCache } from 'lru-cache';
import robotsParserModule from 'robots-parser';
import { CategorizedError } from '../../shared/errors.js';
import { guardedFetch } from '../../shared/net/guarded-fetch.js';

export const CRAWLER_USER_AGENT = 'ExtractServiceBot';
/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; the rest of a larger file is not downloaded. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Parsed robots.txt files kept per worker, by the memory they are estimated to hold (robotsEntryBytes). */
export const ROBOTS_CACHE_MAX_BYTES = 32 * 1024 * 1024;
const TTL_MS = 10 * 60_000;
// A server error or an unreachable server disallows everything, for a shorter while: it may recover.
const UNREACHABLE_TTL_MS = 60_000;
// RFC 9309 §2.3.1.2: follow at least five redirects; past them, robots.txt counts as unavailable.
const MAX_REDIRECTS = 5;

interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getSitemaps(): string[];
}
// A CommonJS module whose typings declare an ES default export: the function is the module itself.
const robotsParser = robotsParserModule as unknown as (url: string, robotsTxt: string) => Robots;

/** What robots.txt says about an origin: its rules, or everything allowed, or everything disallowed. */
type Verdict =
  | { kind: 'rules'; robots: Robots; textBytes: number; lines: number }
  | { kind: 'allow_all' }
  | { kind: 'disallow_all' };

const cache = new LRUCache<string, Verdict>({
  maxSize: ROBOTS_CACHE_MAX_BYTES,
  sizeCalculation: robotsEntryBytes,
  ttl: TTL_MS,
});

/**
 * An upper estimate of an entry's heap: measured, robots-parser keeps up to ~2 bytes per byte of text plus
 * ~50 to 160 bytes per line (rule objects; the most for many one-line groups).
 */
function robotsEntryBytes(verdict: Verdict, origin: string): number {
  const parsed = verdict.kind === 'rules' ? 2 * verdict.textBytes + 160 * verdict.lines : 0;
  return 512 + 2 * origin.length + parsed;
}

export interface RobotsOptions {
  allowPrivate: boolean;
  timeoutMs: number;
}

/** True when robots.txt lets our crawler fetch the URL. */
export async function robotsAllow(url: string, opts: RobotsOptions): Promise<boolean> {
  const verdict = await verdictFor(url, opts);
  if (verdict.kind === 'rules') return verdict.robots.isAllowed(url, CRAWLER_USER_AGENT) ?? true;
  return verdict.kind === 'allow_all';
}

/** The Sitemap: lines of the URL's robots.txt (none when it has no rules), from the same cached read. */
export async function robotsSitemaps(url: string, opts: RobotsOptions): Promise<string[]> {
  const verdict = await verdictFor(url, opts);
  return verdict.kind === 'rules' ? verdict.robots.getSitemaps() : [];
}

async function verdictFor(url: string, opts: RobotsOptions): Promise<Verdict> {
  const origin = new URL(url).origin;
  let verdict = cache.get(origin);
  if (verdict === undefined) {
    verdict = await load(origin, opts);
    cache.set(origin, verdict, { ttl: verdict.kind === 'disallow_all' ? UNREACHABLE_TTL_MS : TTL_MS });
  }
  return verdict;
}

async function load(origin: string, opts: RobotsOptions): Promise<Verdict> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    const res = await guardedFetch({
      url: robotsUrl,
      policy: { allowPrivate: opts.allowPrivate },
      timeoutMs: Math.min(opts.timeoutMs, 10_000),
      maxBytes: ROBOTS_MAX_BYTES,
      truncate: true,
      maxRedirects: MAX_REDIRECTS,
      headers: {},
    });
    return verdictOf(robotsUrl, res.status, res.body);
  } catch (err) {
    return failedVerdict(err);
  }
}

/**
 * RFC 9309 §2.3.1: 2xx are rules; 4xx mean robots.txt is unavailable (allow all), except 429, which like a
 * 5xx says the server is not ready to be crawled (disallow all, as Google reads it).
 */
function verdictOf(robotsUrl: string, status: number, body: Buffer): Verdict {
  if (status >= 200 && status < 300) {
    const text = body.toString('utf8');
    const robots = robotsParser(robotsUrl, text);
    return { kind: 'rules', robots, textBytes: body.length, lines: countLines(body) };
  }
  if (status >= 400 && status < 500 && status !== 429) return { kind: 'allow_all' };
  return { kind: 'disallow_all' };
}

/**
 * An unreachable server (refused, reset, timed out) disallows all. Failures the page fetch would meet as well
 * and report better (the address policy, an unknown name) or that make robots.txt unavailable (redirect
 * trouble) leave the decision to the page: allow.
 */
function failedVerdict(err: unknown): Verdict {
  if (!(err instanceof CategorizedError)) return { kind: 'disallow_all' };
  if (err.category === 'ssrf_blocked' || err.category === 'invalid_input') return { kind: 'allow_all' };
  const reason = err.details?.reason;
  const code = err.details?.code;
  if (code === 'ENOTFOUND') return { kind: 'allow_all' };
  if (['too_many_redirects', 'redirect_loop', 'invalid_redirect', 'tls'].includes(String(reason))) {
    return { kind: 'allow_all' };
  }
  return { kind: 'disallow_all' };
}

function countLines(body: Buffer): number {
  let lines = 1;
  for (let at = body.indexOf(10); at !== -1; at = body.indexOf(10, at + 1)) lines += 1;
  return lines;
}

/** The cache's size, for tests and diagnostics. */
export function robotsCacheStats(): { origins: number; bytes: number; maxBytes: number } {
  return { origins: cache.size, bytes: cache.calculatedSize, maxBytes: ROBOTS_CACHE_MAX_BYTES };
}

export function clearRobotsCache(): void {
  cache.clear();
}
