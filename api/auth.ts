// Bearer API keys on every /api/v1 route (except the OpenAPI document), the per-tenant rate limit (counted in
// the database, so it holds across API processes), and the limit on unknown keys per client address.
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyDoc, Tenant } from '../shared/store/tenants.js';
import { appliedLimits } from '../shared/tiers.js';
import { type AuthFailureCounter, clientAddressKey, MemoryAuthFailures } from './auth-failures.js';
import type { SessionAuthenticate } from './console/session-auth.js';
import type { ApiDeps } from './deps.js';
import { ProblemError, sendProblem } from './problem.js';
import { sharedRateLimitStore } from './rate-limit-store.js';
import { registerUnmatched } from './unmatched.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant;
    apiKeyId: string;
    /** The key the request was authenticated with (its scopes, its pinned API version). */
    apiKey: ApiKeyDoc | null;
  }
}

export const API_PREFIX = '/api/v1';
/** The MCP server (api/mcp/route.ts): authenticated and rate-limited like the API. */
export const MCP_PATH = '/mcp';
/** The router's limit on one path parameter: ids are at most 200 characters, so longer is never an id. */
export const MAX_PARAM_LENGTH = 512;
/** Route patterns (as registered, not as spelled by the caller) under the prefix that need no key. */
const PUBLIC_ROUTES = new Set([`${API_PREFIX}/openapi.json`]);

/**
 * The path as the router would read it, in its most lenient form: percent-decoded (repeatedly, so
 * `%2561` is caught too), duplicate slashes collapsed, lower case, each segment's `;parameters` dropped (as
 * servlet containers and some proxies do). Used only to decide whether an unmatched request is under the
 * API, so no spelling of `/api/...` escapes authentication.
 */
export function canonicalPath(url: string): string {
  let path = url.split('?')[0] ?? '';
  for (let i = 0; i < 3; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      break;
    }
    if (decoded === path) break;
    path = decoded;
  }
  return path
    .replace(/[\\/]+/g, '/')
    .replace(/;[^/]*/g, '')
    .toLowerCase();
}

/**
 * Whether a canonical path is under the API or the MCP server (so an unmatched spelling is authenticated):
 * its first segment, up to the first character a name does not hold (`/api./v1`, `/api%00/v1`, `/mcp:x`),
 * is `api` or `mcp`. Refusing a look-alike unknown path without a key costs nothing.
 */
function isProtectedPath(path: string): boolean {
  const first = /^\/([a-z0-9_-]*)/.exec(path)?.[1];
  return first === 'api' || first === MCP_PATH.slice(1);
}

/**
 * Whether a request needs an API key. A matched route is judged by its registered pattern, never by the
 * URL's spelling (the router decodes `%61pi` to `api`); an unmatched one by its canonical path, so a 404
 * under the API is answered only to an authenticated caller.
 */
export function needsApiKey(request: FastifyRequest): boolean {
  const pattern = request.is404 ? undefined : request.routeOptions.url;
  if (pattern !== undefined)
    return (pattern.startsWith(`${API_PREFIX}/`) && !PUBLIC_ROUTES.has(pattern)) || pattern === MCP_PATH;
  return isProtectedPath(canonicalPath(request.url));
}

export function tenantOf(request: FastifyRequest): Tenant {
  return request.tenant;
}

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Sets the request's tenant from its bearer key, or throws the 401 problem (429 for a refused address). */
export type Authenticate = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The one authentication of the API. An address that sent AUTH_FAILURE_LIMIT unknown keys within
 * AUTH_FAILURE_WINDOW_MS gets a 429 with Retry-After for every request needing a key until its window ends,
 * before its key is looked up (so a valid key does not reopen it). A missing key is not counted: only guesses.
 * Without a bearer key, a console session cookie (`session`, api/console/session-auth.ts) may stand in for one.
 */
export function createAuthenticator(
  deps: ApiDeps,
  failures: AuthFailureCounter = new MemoryAuthFailures(
    deps.config.AUTH_FAILURE_LIMIT,
    deps.config.AUTH_FAILURE_WINDOW_MS,
  ),
  session?: SessionAuthenticate,
): Authenticate {
  return async (request, reply) => {
    const address = clientAddressKey(request.ip);
    const wait = await failures.blockedFor(address);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw new ProblemError({
        slug: 'rate-limited',
        detail: `Too many unknown API keys were sent from this address; retry in ${wait} s.`,
      });
    }
    const token = bearerToken(request.headers.authorization);
    const signedIn = !token && session ? await session(request) : null;
    if (signedIn) {
      request.tenant = signedIn.tenant;
      request.apiKeyId = signedIn.key.id;
      request.apiKey = signedIn.key;
      return;
    }
    if (!token) {
      throw new ProblemError({
        slug: 'unauthorized',
        detail: 'Send your API key as "Authorization: Bearer <key>".',
        errors: [{ location: 'header.authorization', message: 'missing bearer token' }],
      });
    }
    const found = await deps.tenants.findByKey(token);
    if (!found) {
      await failures.recordFailure(address);
      throw new ProblemError({
        slug: 'unauthorized',
        detail: 'The API key is not valid (it may have been deleted, or have expired).',
        errors: [{ location: 'header.authorization', message: 'unknown API key' }],
      });
    }
    request.tenant = found.tenant;
    request.apiKeyId = found.key.id;
    request.apiKey = found.key;
  };
}

/** The rate limit's window; its count is shared by every API process through the database. */
export const RATE_WINDOW_MS = 60_000;

export async function registerAuth(app: FastifyInstance, deps: ApiDeps, authenticate: Authenticate) {
  app.decorateRequest('tenant', null as unknown as Tenant);
  app.decorateRequest('apiKeyId', '');
  app.decorateRequest('apiKey', null);
  app.addHook('onRequest', async (request, reply) => {
    if (needsApiKey(request)) await authenticate(request, reply);
  });

  await app.register(rateLimit, {
    global: true,
    // After authentication (onRequest), before the body is read.
    hook: 'preParsing',
    timeWindow: RATE_WINDOW_MS,
    store: sharedRateLimitStore(deps.db, RATE_WINDOW_MS),
    keyGenerator: (request) => request.tenant?._id ?? request.ip,
    max: (request) =>
      request.tenant
        ? appliedLimits(deps.config, request.tenant).rate_limit_per_minute
        : deps.config.RATE_LIMIT_PER_MINUTE,
    allowList: (request) => !request.tenant,
    errorResponseBuilder: (_request, context) =>
      new ProblemError({
        slug: 'rate-limited',
        detail: `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}.`,
      }),
  });
  // Unknown routes (and known paths under another method) are authenticated (onRequest) and rate-limited
  // like known ones.
  registerUnmatched(app, app.rateLimit());
}

/**
 * Fastify's answer to a URL its router refuses before any hook runs (a path parameter over the router's
 * limit, a malformed URL): authenticated like any API request, then a problem document.
 */
export function frameworkErrors(authenticate: Authenticate) {
  return async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isProtectedPath(canonicalPath(request.url))) {
      try {
        await authenticate(request, reply);
      } catch (err) {
        if (err instanceof ProblemError) return sendProblem(request, reply, err.init);
        throw err;
      }
    }
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      // The same answer the route gives an id over its 200 characters: a validation error of the path.
      return sendProblem(request, reply, {
        slug: 'validation-error',
        detail: `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`,
        errors: [{ location: 'path', message: `longer than ${MAX_PARAM_LENGTH} characters` }],
      });
    }
    return sendProblem(request, reply, { slug: 'bad-request', detail: 'The request URL could not be read.' });
  };
}
