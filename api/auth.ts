// Bearer API keys on every /api/v1 route (except the OpenAPI document), and the per-tenant rate limit.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Tenant } from '../shared/store/tenants.js';
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant;
    apiKeyId: string;
  }
}

export const API_PREFIX = '/api/v1';
const PUBLIC_PATHS = new Set([`${API_PREFIX}/openapi.json`]);

export function tenantOf(request: FastifyRequest): Tenant {
  return request.tenant;
}

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export async function registerAuth(app: FastifyInstance, deps: ApiDeps) {
  app.decorateRequest('tenant', null as unknown as Tenant);
  app.decorateRequest('apiKeyId', '');
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (!path.startsWith(`${API_PREFIX}/`) || PUBLIC_PATHS.has(path)) return;
    const token = bearerToken(request.headers.authorization);
    if (!token) {
      throw new ProblemError({
        slug: 'unauthorized',
        detail: 'Send your API key as "Authorization: Bearer <key>".',
        errors: [{ location: 'header.authorization', message: 'missing bearer token' }],
      });
    }
    const found = await deps.tenants.findByKey(token);
    if (!found) {
      throw new ProblemError({
        slug: 'unauthorized',
        detail: 'The API key is not valid (it may have been deleted).',
        errors: [{ location: 'header.authorization', message: 'unknown API key' }],
      });
    }
    request.tenant = found.tenant;
    request.apiKeyId = found.key.id;
  });

  await app.register(rateLimit, {
    global: true,
    // After authentication (onRequest), before the body is read.
    hook: 'preParsing',
    timeWindow: 60_000,
    keyGenerator: (request) => request.tenant?._id ?? request.ip,
    max: (request) => request.tenant?.rate_limit_per_minute ?? deps.config.RATE_LIMIT_PER_MINUTE,
    allowList: (request) => !request.tenant,
    errorResponseBuilder: (_request, context) =>
      new ProblemError({
        slug: 'rate-limited',
        detail: `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}.`,
      }),
  });
}
