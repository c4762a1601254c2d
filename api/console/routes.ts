// The console at `/`: its page and bundle (built by api/console/build.ts), and its session routes under
// /console/session (sign in with a key or a one-time link, who am I, sign out). Not part of the API document.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { scopesAllow } from '../../shared/api-keys.js';
import { sourcePath } from '../../shared/runtime-paths.js';
import {
  type ConsoleSession,
  type ConsoleSessionStore,
  SESSION_TTL_MS,
} from '../../shared/store/console-sessions.js';
import { keyScopes, type Tenant } from '../../shared/store/tenants.js';
import type { Authenticate } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { ProblemError } from '../problem.js';
import {
  assertSameOrigin,
  type SessionAuthenticate,
  sessionCookie,
  sessionCookieOf,
} from './session-auth.js';

/** Where api/console/build.ts writes the console (from the checkout's root, also in the API's bundle). */
const CONSOLE_DIST_DIR = sourcePath('api/console/dist');

/** No inline script or style, nothing from another origin, no framing. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const ASSETS: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

const SignInSchema = z.union([
  z.object({ api_key: z.string().min(1).max(512) }).strict(),
  z.object({ link_token: z.string().min(1).max(512) }).strict(),
]);

const SessionInfoSchema = z.object({
  tenant: z.object({ id: z.string(), name: z.string() }),
  csrf_token: z.string(),
  expires_at: z.string(),
  signed_in_with: z.enum(['api_key', 'link']),
});

const info = (tenant: Tenant, session: ConsoleSession) => ({
  tenant: { id: tenant._id, name: tenant.name },
  csrf_token: session.csrf_token,
  expires_at: session.expires_at,
  signed_in_with: session.key_id ? ('api_key' as const) : ('link' as const),
});

async function loadBundle(): Promise<Map<string, Buffer> | null> {
  try {
    const files = new Map<string, Buffer>();
    for (const name of ['index.html', ...Object.keys(ASSETS)])
      files.set(name, await readFile(join(CONSOLE_DIST_DIR, name)));
    return files;
  } catch {
    return null;
  }
}

function securityHeaders(reply: FastifyReply) {
  reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
}

/** `authenticate` is the API's (for keys), `session` the console's (api/console/session-auth.ts). */
export function consoleRoutes(
  deps: ApiDeps,
  authenticate: Authenticate,
  session: SessionAuthenticate,
  store: ConsoleSessionStore,
): FastifyPluginAsyncZod {
  const base = deps.config.PUBLIC_BASE_URL;
  return async (app) => {
    const bundle = await loadBundle();
    const file = (name: string) => {
      const body = bundle?.get(name);
      if (!body)
        throw new ProblemError({
          slug: 'service-unavailable',
          detail: 'The console is not built: run "node scripts/setup.mjs" (npm start does).',
        });
      return body;
    };

    app.get('/', { schema: { hide: true } }, async (_request, reply) => {
      securityHeaders(reply);
      reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
      return file('index.html');
    });

    app.get(
      '/console/assets/:name',
      { schema: { hide: true, params: z.object({ name: z.string().max(64) }) } },
      async (request, reply) => {
        const type = ASSETS[request.params.name];
        if (!type) throw new ProblemError({ slug: 'not-found', detail: 'no such console asset' });
        securityHeaders(reply);
        reply.header('cache-control', 'no-cache').type(type);
        return file(request.params.name);
      },
    );

    const secure = (protocol: string) => protocol === 'https' || Boolean(base?.startsWith('https:'));

    app.post(
      '/console/session',
      { schema: { hide: true, body: SignInSchema, response: { 200: SessionInfoSchema } } },
      async (request, reply) => {
        assertSameOrigin(request, base); // no sign-in forced on a user by another page
        let tenant: Tenant;
        let key: { id: string; _id: string } | null = null;
        if ('api_key' in request.body) {
          // The API's own authentication: unknown keys count against the address like any guess.
          request.headers.authorization = `Bearer ${request.body.api_key}`;
          await authenticate(request, reply);
          if (!request.apiKey || !scopesAllow(keyScopes(request.apiKey), ['manage']))
            throw new ProblemError({
              slug: 'forbidden',
              detail: 'Sign in with an API key that may manage keys (scope full).',
            });
          tenant = request.tenant;
          key = request.apiKey;
        } else {
          const tenantId = await store.redeemLink(request.body.link_token);
          const found = tenantId ? await deps.tenants.getTenant(tenantId) : null;
          if (!found)
            throw new ProblemError({
              slug: 'unauthorized',
              detail:
                'This sign-in link is unknown, already used or expired; ask the operator for a new one.',
            });
          tenant = found;
        }
        const opened = await store.open(tenant._id, key);
        reply.header(
          'set-cookie',
          sessionCookie(opened.token, SESSION_TTL_MS / 1000, secure(request.protocol)),
        );
        return info(tenant, opened.session);
      },
    );

    app.get(
      '/console/session',
      { schema: { hide: true, response: { 200: SessionInfoSchema } } },
      async (request) => {
        const found = await session(request);
        if (!found) throw new ProblemError({ slug: 'unauthorized', detail: 'Not signed in to the console.' });
        return info(found.tenant, found.session);
      },
    );

    app.delete('/console/session', { schema: { hide: true } }, async (request, reply) => {
      // Checks origin and CSRF token like any state-changing request of the session.
      if (await session(request)) await store.end(sessionCookieOf(request) ?? '');
      reply.header('set-cookie', sessionCookie('', 0, secure(request.protocol)));
      return reply.code(204).send();
    });
  };
}
