// The one way the MCP tools reach the service: an HTTP request to /api/v1 as the caller, so authentication,
// tenant scoping, validation and the rate limit are the HTTP API's own. In process (the /mcp route) it is
// app.inject with the caller's Authorization header; from the stdio server it is fetch to a running service.
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../auth.js';

export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Under /api/v1, e.g. `/jobs/abc`; path segments already encoded. */
  path: string;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  /** The parsed JSON body, or null when the body is empty or not JSON. */
  body: unknown;
  retryAfter: string | null;
}

export type ApiCall = (request: ApiRequest) => Promise<ApiResponse>;

/** The tools read the interface's shapes, whatever version the caller's key is pinned to. */
const V1 = { 'x-api-version': 'v1' } as const;

/** The service could not be reached at all (stdio only): the message names the URL, never the key. */
export class ServiceUnreachableError extends Error {}

function urlOf(request: ApiRequest): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(request.query ?? {})) query.set(k, String(v));
  const qs = query.size ? `?${query}` : '';
  return `${API_PREFIX}${request.path}${qs}`;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function headerText(value: string | string[] | number | undefined | null): string | null {
  if (value === undefined || value === null) return null;
  return Array.isArray(value) ? (value[0] ?? null) : String(value);
}

/** Requests through the app itself, as the holder of `authorization` (the header the /mcp request carried). */
export function injectCall(app: FastifyInstance, authorization: string): ApiCall {
  return async (request) => {
    const res = await app.inject({
      method: request.method,
      url: urlOf(request),
      headers: { authorization, accept: 'application/json', ...V1 },
      ...(request.body === undefined ? {} : { payload: request.body as object }),
    });
    return {
      status: res.statusCode,
      body: parseJson(res.body),
      retryAfter: headerText(res.headers['retry-after']),
    };
  };
}

/** Requests to a running service over HTTP. `timeoutMs` bounds each request (a waited extract included). */
export function fetchCall(baseUrl: string, apiKey: string, timeoutMs: number): ApiCall {
  return async (request) => {
    const url = new URL(urlOf(request), baseUrl);
    let res: Response;
    try {
      res = await fetch(url, {
        method: request.method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: 'application/json',
          ...V1,
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const reason = err instanceof Error && err.name === 'TimeoutError' ? 'timed out' : 'connection failed';
      throw new ServiceUnreachableError(`The service at ${url.origin} could not be reached (${reason}).`);
    }
    return {
      status: res.status,
      body: parseJson(await res.text()),
      retryAfter: res.headers.get('retry-after'),
    };
  };
}
