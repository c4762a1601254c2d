// A console session as the API's credential: the httpOnly cookie, accepted only from the console's own origin,
// with the session's CSRF token on every state-changing request. It stands in for an API key of scope full on
// the same authentication, scope and rate-limit path (api/auth.ts).
import { timingSafeEqual } from 'node:crypto';
import { parse as parseCookie, serialize as serializeCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';
import type { ConsoleSession, ConsoleSessionStore } from '../../shared/store/console-sessions.js';
import type { ApiKeyDoc, Tenant, TenantStore } from '../../shared/store/tenants.js';
import { originOf } from '../origin.js';
import { ProblemError } from '../problem.js';

export const SESSION_COOKIE = 'console_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const sessionCookieOf = (request: FastifyRequest): string | undefined =>
  parseCookie(request.headers.cookie ?? '')[SESSION_COOKIE];

export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return serializeCookie(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    maxAge: maxAgeSeconds,
  });
}

/**
 * Whether the request comes from a page of this origin: Sec-Fetch-Site (every current browser sends it) must
 * say same-origin, and an Origin header must be ours. A sibling origin on the same site (another port of the
 * same host) gets the SameSite=Strict cookie too, so the cookie alone proves nothing.
 */
export function assertSameOrigin(request: FastifyRequest, publicBaseUrl: string | undefined) {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const ours = originOf(request, publicBaseUrl);
  const sameOrigin = site === 'same-origin' && (origin === undefined || origin === ours);
  if (sameOrigin) return;
  throw new ProblemError({
    slug: 'forbidden',
    detail: 'A console session is accepted only from the console itself (same origin); use an API key.',
    errors: [{ location: 'header.origin', message: 'not the console origin', value: origin ?? site ?? null }],
  });
}

function assertCsrf(request: FastifyRequest, session: ConsoleSession) {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = Buffer.from(String(request.headers[CSRF_HEADER] ?? ''));
  const expected = Buffer.from(session.csrf_token);
  if (sent.length === expected.length && timingSafeEqual(sent, expected)) return;
  throw new ProblemError({
    slug: 'forbidden',
    detail: "A state-changing request of the console must carry the session's CSRF token (X-CSRF-Token).",
    errors: [{ location: `header.${CSRF_HEADER}`, message: 'missing or wrong CSRF token' }],
  });
}

/** What a session authenticates as: its tenant, and a key record of scope full named after the session. */
export function sessionKey(session: ConsoleSession): ApiKeyDoc {
  return {
    _id: session._id,
    id: session.key_id ?? 'console-session',
    tenant_id: session.tenant_id,
    name: 'console session',
    prefix: '',
    created_at: session.created_at,
    last_used_at: null,
    scopes: ['full'],
    api_version: 'v1',
    expires_at: session.expires_at,
  };
}

export type SessionAuthenticate = (
  request: FastifyRequest,
) => Promise<{ tenant: Tenant; key: ApiKeyDoc; session: ConsoleSession } | null>;

/**
 * The session a request's cookie names, checked (origin, CSRF), or null when it carries no session cookie.
 * An ended or expired session is a 401 that tells the user to sign in again.
 */
export function createSessionAuthenticator(
  store: ConsoleSessionStore,
  tenants: TenantStore,
  publicBaseUrl: string | undefined,
): SessionAuthenticate {
  return async (request) => {
    const token = sessionCookieOf(request);
    if (!token) return null;
    assertSameOrigin(request, publicBaseUrl);
    const session = await store.find(token);
    const tenant = session && (await tenants.getTenant(session.tenant_id));
    // A session opened with a key lasts no longer than the key: revoking it signs its sessions out.
    const keyGone = session?.key_hash ? !(await tenants.findKeyByHash(session.key_hash)) : false;
    if (keyGone) await store.end(token);
    if (!session || !tenant || keyGone) {
      throw new ProblemError({
        slug: 'unauthorized',
        detail: 'The console session has ended or expired (or its API key was revoked); sign in again.',
        errors: [{ location: `cookie.${SESSION_COOKIE}`, message: 'unknown or expired session' }],
      });
    }
    assertCsrf(request, session);
    return { tenant, key: sessionKey(session), session };
  };
}
