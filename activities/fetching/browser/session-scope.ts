// A stored site's session as a fetch carries it: cookies and headers that go to the site's own origin
// (scheme, host and port) only. Static mode sends them as headers on hops to that origin (guarded-fetch
// originHeaders). In the browser they never enter the cookie jar, which would send them to every port of the
// host and from any frame, worker or popup: request interception adds them to a request only when it goes to
// the site's origin and was made by one of the site's own documents (its frame, and every frame above it, on
// the site's origin). A request whose document cannot be told (a worker's, a popup's) gets none, and the
// cookies the site set in the jar meanwhile are taken off every other request to its host.
import type { Frame, HTTPRequest, Page } from 'puppeteer-core';
import type { OriginHeaders } from '../../../shared/net/guarded-fetch.js';
import type { SessionCookie } from '../../../shared/schemas/site-session.js';

export interface FetchSession {
  /** The site's origin (scheme, host, port): the only one that gets the cookies and headers. */
  origin: string;
  /** Lower-case host name: the cookies a login leaves in the browser are read for it. */
  hostname: string;
  cookies: SessionCookie[];
  headers: Record<string, string>;
}

/** The session as static-mode headers for its origin: its headers and a Cookie header. */
export function staticOriginHeaders(session: FetchSession): OriginHeaders {
  const headers = { ...session.headers };
  if (session.cookies.length) headers.cookie = session.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { origin: session.origin, headers };
}

/**
 * The headers a browser request goes on with, when the session changes them: the site's own requests get
 * the session's headers and cookies; any other request to the site's host loses its cookies. undefined: as
 * it is.
 */
export function browserHeadersFor(
  session: FetchSession | undefined,
  req: HTTPRequest,
): Record<string, string> | undefined {
  if (!session) return undefined;
  const target = parsed(req.url());
  if (!target) return undefined;
  const headers = req.headers();
  if (target.origin === session.origin && bySiteDocument(req, session.origin)) {
    const cookie = cookieHeader(session.cookies, target.pathname, headers.cookie);
    return { ...headers, ...session.headers, ...(cookie ? { cookie } : {}) };
  }
  if (target.hostname.toLowerCase() !== session.hostname || headers.cookie === undefined) return undefined;
  // Without a Cookie header the browser would add the jar's again: an empty one sends none.
  return { ...headers, cookie: '' };
}

/**
 * Whether one of the site's own documents made the request: a request of a frame that, with every frame above
 * it, holds a page of the site; or a navigation of a frame whose parents all do and whose own document (the
 * one being replaced, which may have started the navigation) is the site's or a new frame's blank one. The
 * main frame's navigations are the render's own. A request without a frame (a worker's) is nobody's.
 */
function bySiteDocument(req: HTTPRequest, origin: string): boolean {
  const frame = req.frame();
  if (!frame) return false;
  let current = frame;
  if (req.isNavigationRequest()) {
    const parent = frame.parentFrame();
    if (!parent) return true;
    const replaced = frame.url();
    if (replaced !== '' && replaced !== 'about:blank' && parsed(replaced)?.origin !== origin) return false;
    current = parent;
  }
  for (let f: Frame | null = current; f; f = f.parentFrame())
    if (parsed(f.url())?.origin !== origin) return false;
  return true;
}

/** The session's cookies for this path, then those the site set in the jar (newer, so they win). */
function cookieHeader(cookies: SessionCookie[], path: string, jar: string | undefined): string | undefined {
  const inJar = new Set((jar ?? '').split(';').map((pair) => pair.split('=')[0]?.trim()));
  const pairs = cookies.filter((c) => pathMatches(c.path, path) && !inJar.has(c.name));
  const own = pairs.map((c) => `${c.name}=${c.value}`);
  if (jar) own.push(jar);
  return own.length ? own.join('; ') : undefined;
}

/** A cookie's path matches the request's as browsers match them: equal, or a prefix ending at a '/'. */
function pathMatches(cookiePath: string, path: string): boolean {
  if (cookiePath === path || cookiePath === '/') return true;
  if (!path.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || path[cookiePath.length] === '/';
}

function parsed(url: string): URL | undefined {
  try {
    const u = new URL(url);
    return u.origin === 'null' ? undefined : u;
  } catch {
    return undefined;
  }
}

/** The cookies the page's context holds that the browser would send to the site's host (a login's result). */
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
