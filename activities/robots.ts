// robots.txt, fetched through the guarded fetch once per origin and kept for a while in worker memory.
import robotsParserModule from 'robots-parser';
import { guardedFetch } from '../shared/net/guarded-fetch.js';

export const CRAWLER_USER_AGENT = 'ExtractServiceBot';
const TTL_MS = 10 * 60_000;
const MAX_ORIGINS = 1000;

interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
// A CommonJS module whose typings declare an ES default export: the function is the module itself.
const robotsParser = robotsParserModule as unknown as (url: string, robotsTxt: string) => Robots;
const cache = new Map<string, { robots: Robots | null; until: number }>();

/** True when robots.txt lets our crawler fetch the URL (a missing or unreadable robots.txt allows all). */
export async function robotsAllow(
  url: string,
  opts: { allowPrivate: boolean; timeoutMs: number },
): Promise<boolean> {
  const origin = new URL(url).origin;
  let entry = cache.get(origin);
  if (!entry || entry.until < Date.now()) {
    entry = { robots: await load(origin, opts), until: Date.now() + TTL_MS };
    if (cache.size >= MAX_ORIGINS) cache.delete(cache.keys().next().value as string);
    cache.set(origin, entry);
  }
  return entry.robots?.isAllowed(url, CRAWLER_USER_AGENT) ?? true;
}

async function load(
  origin: string,
  opts: { allowPrivate: boolean; timeoutMs: number },
): Promise<Robots | null> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    const res = await guardedFetch({
      url: robotsUrl,
      policy: { allowPrivate: opts.allowPrivate },
      timeoutMs: Math.min(opts.timeoutMs, 10_000),
      maxBytes: 512 * 1024,
      maxRedirects: 3,
      headers: {},
    });
    if (res.status >= 400) return null; // no robots.txt: everything is allowed
    return robotsParser(robotsUrl, res.body.toString('utf8'));
  } catch {
    return null;
  }
}

export function clearRobotsCache(): void {
  cache.clear();
}
