// One scrape for both processes: the METRICS_TOKEN check and the registry's text, so the API's route and the
// worker's small server answer alike.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Registry } from 'prom-client';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** With no token configured every scrape is allowed (the port's binding is the protection). */
export function scrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  // Digests have one length, so the comparison takes the same time whatever was sent.
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), digest(token));
}

export interface Scrape {
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: string;
}

export async function scrape(
  registry: Registry,
  authorization: string | undefined,
  token: string | undefined,
): Promise<Scrape> {
  if (!scrapeAllowed(authorization, token)) {
    return {
      status: 401,
      contentType: 'text/plain; charset=utf-8',
      headers: { 'www-authenticate': 'Bearer realm="metrics"' },
      body: 'metrics need Authorization: Bearer <METRICS_TOKEN>\n',
    };
  }
  return { status: 200, contentType: registry.contentType, headers: {}, body: await registry.metrics() };
}
