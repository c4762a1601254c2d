// Turns browser navigation problems into the service's error vocabulary: the document's redirects (scheme,
// loops, count) checked as they happen, and failed navigations. Chromium reports network failures as
// `net::ERR_*` codes in the message of the error page.goto() throws; the proxy's own refusals are looked up
// by the caller, because through a proxy they all look like a failed tunnel or an error page.
import { CategorizedError } from '../../../shared/errors.js';
import type { Refusal } from './filtering-proxy.js';

export interface NavigationContext {
  /** The document URL the navigation was fetching when it failed (the last redirect hop). */
  url: string;
  timeoutMs: number;
  /** The proxy's refusal of that URL's host, if it refused it. */
  refusal?: Refusal;
}

const RETRYABLE = new Set([
  'ERR_CONNECTION_REFUSED',
  'ERR_CONNECTION_RESET',
  'ERR_CONNECTION_CLOSED',
  'ERR_CONNECTION_ABORTED',
  'ERR_CONNECTION_FAILED',
  'ERR_EMPTY_RESPONSE',
  'ERR_TUNNEL_CONNECTION_FAILED',
  'ERR_PROXY_CONNECTION_FAILED',
  'ERR_ADDRESS_UNREACHABLE',
  'ERR_NETWORK_CHANGED',
  'ERR_INTERNET_DISCONNECTED',
  'ERR_HTTP2_PROTOCOL_ERROR',
]);
const TIMEOUTS = new Set(['ERR_TIMED_OUT', 'ERR_CONNECTION_TIMED_OUT']);
const TLS = /^ERR_(CERT_|SSL_|BAD_SSL_|TLS|QUIC_HANDSHAKE)/;
// Messages of a browser or page that went away under us: the browser is replaced, so a retry may succeed.
const BROWSER_GONE =
  /Target closed|Session closed|Protocol error|Connection closed|browser has disconnected/i;

export function netErrorCode(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : String(err);
  return /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
}

export function navigationFailure(err: unknown, ctx: NavigationContext): CategorizedError {
  if (err instanceof CategorizedError) return err;
  const host = hostOf(ctx.url);
  if (ctx.refusal) {
    return new CategorizedError(ctx.refusal.category, ctx.refusal.message, false, {
      host: ctx.refusal.host,
      reason: 'proxy_refused',
    });
  }
  if (err instanceof Error && err.name === 'TimeoutError') {
    return new CategorizedError('fetch_timeout', `${host} did not load within ${ctx.timeoutMs} ms`, true, {
      timeoutMs: ctx.timeoutMs,
    });
  }
  const code = netErrorCode(err);
  if (code === undefined) {
    const message = err instanceof Error ? err.message : String(err);
    const gone = BROWSER_GONE.test(message);
    return new CategorizedError('fetch_error', `rendering ${host} failed: ${message}`, gone, {
      reason: gone ? 'browser_gone' : 'browser_error',
    });
  }
  if (TIMEOUTS.has(code)) {
    return new CategorizedError('fetch_timeout', `${host} timed out (${code})`, true, { code });
  }
  if (TLS.test(code)) {
    return new CategorizedError('fetch_error', `TLS error from ${host}: ${code}`, false, {
      code,
      reason: 'tls',
    });
  }
  if (code === 'ERR_TOO_MANY_REDIRECTS') {
    return new CategorizedError('fetch_error', `too many redirects from ${host}`, false, {
      code,
      reason: 'too_many_redirects',
    });
  }
  if (code === 'ERR_NAME_NOT_RESOLVED') {
    return new CategorizedError('fetch_error', `could not resolve ${host}`, false, { code });
  }
  return new CategorizedError('fetch_error', `loading ${host} failed: ${code}`, RETRYABLE.has(code), {
    code,
  });
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

// data: and blob: stay inside the page; everything else (file:, chrome:, ftp:, …) is refused.
const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'data:', 'blob:', 'about:']);

export function isAllowedScheme(url: string): boolean {
  return ALLOWED_SCHEMES.has(schemeOf(url));
}

/**
 * Why the main document's next request must not be made: a scheme other than http(s), a URL already in its
 * redirect chain (the fragment does not count), or one redirect too many. Null when it may go.
 */
export function redirectRefusal(url: string, chain: string[], maxRedirects: number): CategorizedError | null {
  if (!isAllowedScheme(url)) {
    return new CategorizedError('fetch_error', `unusable redirect to ${schemeOf(url)}`, false, {
      reason: 'invalid_redirect',
      location: url,
    });
  }
  if (chain.length === 0) return null;
  const visited = chain.map(withoutHash);
  if (visited.includes(withoutHash(url))) {
    return new CategorizedError('fetch_error', `redirect loop at ${url}`, false, {
      reason: 'redirect_loop',
      url,
    });
  }
  if (chain.length > maxRedirects) {
    return new CategorizedError('fetch_error', `more than ${maxRedirects} redirects`, false, {
      reason: 'too_many_redirects',
      redirects: chain.slice(1).concat(url),
    });
  }
  return null;
}

export function tooLarge(maxBytes: number, details: Record<string, unknown>): CategorizedError {
  return new CategorizedError('content_too_large', `the page is larger than ${maxBytes} bytes`, false, {
    maxBytes,
    ...details,
  });
}

export function scriptHeapTooLarge(budget: number, heapBytes: number): CategorizedError {
  const message = `the page's scripts used more than ${budget} bytes of memory while rendering`;
  return new CategorizedError('content_too_large', message, false, { maxScriptHeapBytes: budget, heapBytes });
}

export function rendererTooLarge(budget: number, rendererBytes: number): CategorizedError {
  const message = `the page's renderer used more than ${budget} bytes of memory while rendering`;
  return new CategorizedError('content_too_large', message, false, {
    maxRendererBytes: budget,
    rendererBytes,
  });
}

export function transferTooLarge(budget: number, transferBytes: number): CategorizedError {
  const message = `the page downloaded more than ${budget} bytes while rendering`;
  return new CategorizedError('content_too_large', message, false, {
    maxTransferBytes: budget,
    transferBytes,
  });
}

function schemeOf(url: string): string {
  return url.slice(0, url.indexOf(':') + 1).toLowerCase();
}

export function withoutHash(url: string): string {
  const at = url.indexOf('#');
  return at === -1 ? url : url.slice(0, at);
}
