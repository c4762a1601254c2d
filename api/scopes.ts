// API key scopes, checked on every authenticated route: what a route does (ROUTE_RULES, else its method) against
// what the key's scopes grant (shared/api-keys.ts). A refusal is a 403 problem naming the scopes that would do.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type RouteAccess, scopesAllow, scopesFor } from '../shared/api-keys.js';
import { keyScopes } from '../shared/store/tenants.js';
import { API_PREFIX, MCP_PATH } from './auth.js';
import { ProblemError } from './problem.js';

/** Routes that do something else than their method says: starting jobs, and what any key may call. */
const ROUTE_RULES: Record<string, readonly RouteAccess[]> = {
  'POST /extract': ['extract'],
  'POST /analyze': ['extract'],
  'POST /map': ['extract'],
  'POST /crawl': ['crawl'],
  'POST /sites/:id/crawl': ['crawl'],
  'POST /jobs/:id/cancel': ['extract', 'crawl'],
  'POST /jobs/:id/retry': ['extract', 'crawl'],
  'POST /jobs/:id/reextract': ['extract', 'crawl'],
  'GET /health': ['any'],
};

/**
 * What a route needs, by its registered pattern: a rule above; else reading a job (GET under /jobs) needs
 * jobs.read, any other read needs read, and anything that writes needs manage (settings, stored resources,
 * keys, monitors). The MCP endpoint is open to every key: each tool call is a request of its own, checked here.
 */
export function routeAccess(method: string, pattern: string): readonly RouteAccess[] {
  if (pattern === MCP_PATH) return ['any'];
  const path = pattern.startsWith(API_PREFIX) ? pattern.slice(API_PREFIX.length) : pattern;
  const rule = ROUTE_RULES[`${method} ${path}`];
  if (rule) return rule;
  if (method === 'GET' || method === 'HEAD') return path.startsWith('/jobs') ? ['jobs.read'] : ['read'];
  return ['manage'];
}

function checkScopes(request: FastifyRequest) {
  if (!request.apiKey || request.is404) return;
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return;
  const needs = routeAccess(request.method, pattern);
  const scopes = keyScopes(request.apiKey);
  if (scopesAllow(scopes, needs)) return;
  const enough = scopesFor(needs);
  throw new ProblemError({
    slug: 'forbidden',
    detail:
      `This API key has the scopes ${scopes.join(', ')}, which do not allow ${request.method} ` +
      `${request.url.split('?')[0]}: it needs the scope ${enough.join(' or ')}.`,
    errors: [
      { location: 'header.authorization', message: `scope ${enough.join(' or ')} required`, value: scopes },
    ],
  });
}

/** After authentication (auth.ts): every matched route under the API and the MCP endpoint. */
export function registerScopeCheck(app: FastifyInstance) {
  app.addHook('onRequest', async (request) => checkScopes(request));
}
