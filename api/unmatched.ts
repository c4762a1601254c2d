// Requests no route answers: 405 with Allow when the path exists under other methods, else 404. Both are
// decided before the body is read (a QUERY or PATCH with no route is refused for its method, not for its
// missing Content-Type) and after authentication and the rate limit, like every request under the API.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem.js';

interface RoutePattern {
  methods: Set<string>;
  matches: RegExp;
}

const escapeRegex = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The router's pattern as a regex over a decoded path: `:name` is one segment, `*` the rest. */
function patternRegex(url: string): RegExp {
  const parts = url.split(/(:[A-Za-z0-9_]+|\*)/);
  const body = parts
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : escapeRegex(part)))
    .join('');
  return new RegExp(`^${body}/?$`);
}

function decodedPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/**
 * Registers the table of routes (every route registered after this call, so call it before the routes)
 * and the handling of unmatched requests. `rateLimit` is the hook of @fastify/rate-limit.
 */
export function registerUnmatched(
  app: FastifyInstance,
  rateLimit: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
) {
  const routes = new Map<string, RoutePattern>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const entry = routes.get(route.url) ?? { methods: new Set<string>(), matches: patternRegex(route.url) };
    for (const method of methods) entry.methods.add(method.toUpperCase());
    routes.set(route.url, entry);
  });

  const allowedMethods = (url: string): string[] => {
    const path = decodedPath(url);
    const allowed = new Set<string>();
    for (const route of routes.values()) {
      if (route.matches.test(path)) for (const method of route.methods) allowed.add(method);
    }
    return [...allowed].sort();
  };

  // preParsing of the not-found route: authenticated (onRequest) already; rate-limited here, once.
  app.addHook('preParsing', async (request, reply) => {
    if (!request.is404) return;
    await rateLimit(request, reply);
    if (reply.sent) return reply;
    const allowed = allowedMethods(request.url);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(request, reply, {
        slug: 'method-not-allowed',
        detail: `${request.method} is not allowed here; allowed: ${allowed.join(', ')}`,
      });
    }
    return sendProblem(request, reply, {
      slug: 'not-found',
      detail: `No route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}`,
    });
  });
  // Reached only if the hook above did not answer (it always does); kept so no request goes unanswered.
  app.setNotFoundHandler(async (request, reply) =>
    sendProblem(request, reply, { slug: 'not-found', detail: `No route ${request.method}` }),
  );
}
