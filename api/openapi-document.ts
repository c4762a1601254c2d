// The served OpenAPI document, finished from what the routes declare: what every route of the API answers
// the same way (errors the framework gives before a route runs, the rate-limit headers, problem media types)
// is added here once, so each route declares only its own responses and the document stays exact.
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPES } from './problem.js';

interface Response {
  description?: string;
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}
interface Operation {
  parameters?: { in: string }[];
  requestBody?: unknown;
  responses?: Record<string, Response>;
}
type Paths = Record<string, Record<string, Operation>>;

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
/** Sent on every answer to an authenticated request (@fastify/rate-limit). */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': integerHeader("The tenant's requests allowed per minute."),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current minute.'),
  'X-RateLimit-Reset': integerHeader('Seconds until the current minute ends.'),
};
const RETRY_AFTER = {
  'Retry-After': integerHeader(
    'Seconds to wait before retrying (for a job start: with the same Idempotency-Key).',
  ),
};

const BODY_METHODS = new Set(['post', 'put', 'patch']);

function problemResponse(status: string): Response {
  // The first problem type of that status (the service's own, e.g. rate-limited before provider-rate-limited).
  const kind = Object.values(PROBLEM_TYPES).find((type) => type.status === Number(status));
  return {
    description: kind ? `${kind.title}: ${kind.description}` : 'Error',
    content: { [PROBLEM_CONTENT_TYPE]: { schema: PROBLEM_REF } },
  };
}

function finishOperation(path: string, method: string, operation: Operation) {
  const responses = operation.responses ?? {};
  operation.responses = responses;
  if (!path.startsWith('/api/')) return;
  const add = (status: string) => {
    responses[status] ??= problemResponse(status);
  };
  // The framework refuses these before the route runs, on any route that could receive them.
  add('400');
  if (BODY_METHODS.has(method)) add('415');
  for (const [status, response] of Object.entries(responses)) {
    // Error responses are problem documents: the document says so with the right media type.
    const json = response.content?.['application/json'];
    if (Number(status) >= 400 && json && response.content)
      response.content = { [PROBLEM_CONTENT_TYPE]: json };
    if (!response.description || response.description === 'Default Response') {
      response.description = Number(status) >= 400 ? problemResponse(status).description : 'Success';
    }
    if (status === '401') continue; // not authenticated: no rate limit applies
    response.headers = {
      ...RATE_LIMIT_HEADERS,
      ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
      ...response.headers,
    };
  }
}

export function finishDocument<T extends Record<string, unknown>>(document: T): T {
  const paths = (document.paths ?? {}) as Paths;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) finishOperation(path, method, operation);
  }
  return document;
}
