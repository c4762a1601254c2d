// Which API version answers a request: the X-API-Version request header when it names one, else the version
// pinned on the request's API key (POST /keys api_version, admin set-key-version), else v1. Every answer says
// which in its X-API-Version header. Runs after authentication (auth.ts), which found the key.
import type { FastifyInstance } from 'fastify';
import { API_VERSIONS, type ApiVersion, DEFAULT_API_VERSION, isApiVersion } from '../../shared/api-keys.js';
import { keyApiVersion } from '../../shared/store/tenants.js';
import { ProblemError } from '../problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiVersion: ApiVersion;
  }
}

export const API_VERSION_HEADER = 'x-api-version';

export function registerApiVersion(app: FastifyInstance) {
  app.decorateRequest('apiVersion', DEFAULT_API_VERSION);
  app.addHook('onRequest', async (request, reply) => {
    const asked = request.headers[API_VERSION_HEADER];
    const named = typeof asked === 'string' ? asked.trim() : '';
    reply.header(API_VERSION_HEADER, DEFAULT_API_VERSION);
    if (named !== '' && !isApiVersion(named)) {
      throw new ProblemError({
        slug: 'validation-error',
        detail: `Unknown API version "${named}": one of ${API_VERSIONS.join(', ')}.`,
        errors: [{ location: `header.${API_VERSION_HEADER}`, message: 'unknown API version', value: named }],
      });
    }
    request.apiVersion =
      named !== ''
        ? (named as ApiVersion)
        : request.apiKey
          ? keyApiVersion(request.apiKey)
          : DEFAULT_API_VERSION;
    reply.header(API_VERSION_HEADER, request.apiVersion);
  });
}
