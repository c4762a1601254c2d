import type { FastifyRequest } from 'fastify';

/**
 * The service's own address for absolute URLs it hands out: PUBLIC_BASE_URL when set (set it in production:
 * otherwise it is the scheme and Host header the caller reached the service with).
 */
export function originOf(request: FastifyRequest, publicBaseUrl?: string): string {
  if (publicBaseUrl) return publicBaseUrl.replace(/\/+$/, '');
  return `${request.protocol}://${request.host}`;
}
