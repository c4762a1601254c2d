// A stored site's session as a fetch carries it: cookies and headers that go to the site's own host only.
// Static mode sends them as headers on hops to that host (guarded-fetch hostHeaders); in the browser the
// cookies are host-only cookies of that host (the browser sends them nowhere else) and the headers are added
// by request interception to requests for that host alone.
import type { Page } from 'puppeteer-core';
import type { HostHeaders } from '../../shared/net/guarded-fetch.js';
import type { SessionCookie } from '../../shared/schemas/site-session.js';

export interface FetchSession {
  /** The site's origin (scheme, host, port): where its cookies belong. */
  origin: string;
  /** Lower-case host name; the only one that gets the cookies and headers. */
  hostname: string;
  cookies: SessionCookie[];
  headers: Record<string, string>;
}

/** The session as static-mode headers for its host: its headers and a Cookie header. */
export function staticHostHeaders(session: FetchSession): HostHeaders {
  const headers = { ...session.headers };
  if (session.cookies.length) headers.cookie = session.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { hostname: session.hostname, headers, httpsOnly: session.origin.startsWith('https:') };
}

/** Headers a browser request gets: the session's, when the request goes to the site's host; else none. */
export function browserHeadersFor(
  session: FetchSession | undefined,
  url: string,
): Record<string, string> | undefined {
  if (!session || Object.keys(session.headers).length === 0) return undefined;
  try {
    const target = new URL(url);
    if (session.origin.startsWith('https:') && target.protocol !== 'https:') return undefined;
    return target.hostname.toLowerCase() === session.hostname ? session.headers : undefined;
  } catch {
    return undefined;
  }
}

/** Sets the cookies in the page's (private, per-page) browser context as host-only cookies of the site. */
export async function setSessionCookies(page: Page, session: FetchSession): Promise<void> {
  if (!session.cookies.length) return;
  await page.setCookie(
    ...session.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      url: new URL(c.path, session.origin).href,
      path: c.path,
      httpOnly: c.http_only,
      // A site served over https gets its cookies back only over https.
      secure: session.origin.startsWith('https:'),
    })),
  );
}

/** The cookies the page's context holds that the browser would send to the site's host. */
export async function siteCookies(page: Page, hostname: string): Promise<SessionCookie[]> {
  const all = await page.browserContext().cookies();
  return all
    .filter((c) => {
      const domain = c.domain.replace(/^\./, '').toLowerCase();
      return hostname === domain || hostname.endsWith(`.${domain}`);
    })
    .slice(0, 50)
    .map((c) => ({ name: c.name, value: c.value, path: c.path || '/', http_only: c.httpOnly ?? true }));
}
