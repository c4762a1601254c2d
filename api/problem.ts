// Every error leaves the API as an RFC 9457 problem document (application/problem+json).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { CATEGORY_HTTP_STATUS, CategorizedError } from '../shared/errors.js';
import type { Problem } from '../shared/schemas/problem.js';
import { SecretsUnavailableError } from '../shared/secrets.js';
import { isDatabaseUnavailable } from '../shared/store/mongo.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The kinds of problem the API answers, each with its own `type` URI (served at /problems/{slug}). */
export const PROBLEM_TYPES = {
  'validation-error': {
    status: 422,
    title: 'Invalid request',
    description: 'A field of the request is invalid; errors[] names each one.',
  },
  'bad-request': {
    status: 400,
    title: 'Bad request',
    description: 'The request could not be read (for example malformed JSON).',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description: 'The Authorization: Bearer <API key> header is missing or the key is not valid.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description:
      "The API key's scopes do not allow this request (a read-only key starting a job or changing a setting); " +
      'the detail names the scopes that would.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description: 'No such route, or no such resource for this tenant.',
  },
  'not-acceptable': {
    status: 406,
    title: 'Not acceptable',
    description: 'The Accept header allows none of the media types the resource is available in.',
  },
  'link-expired': {
    status: 410,
    title: 'Link expired',
    description:
      'The signed download link is past its expires_at; ask GET /api/v1/jobs/{id}/download for a new one.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but not for this method; the Allow header lists the methods it takes.',
  },
  conflict: { status: 409, title: 'Conflict', description: 'The resource conflicts with an existing one.' },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is larger than the documented limit.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Send the body as application/json.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description:
      "The tenant's request-rate limit is exceeded, or the caller's address sent too many unknown API keys; " +
      'retry after Retry-After seconds.',
  },
  'too-many-streams': {
    status: 429,
    title: 'Too many open streams',
    description:
      'The tenant already holds STREAMS_PER_TENANT job streams open; close one before opening another.',
  },
  'too-many-jobs': {
    status: 429,
    title: 'Too many jobs running',
    description:
      "The tenant's pricing tier runs at most max_concurrent_jobs jobs at once (GET /api/v1/pricing/tiers); " +
      'retry after Retry-After seconds.',
  },
  'provider-rate-limited': {
    status: 429,
    title: 'Model provider rate limit',
    description:
      'The job failed because the model provider refused it for its own rate limit or quota (error_category ' +
      "rate_limit); Retry-After is the provider's when it sent one. Not the tenant's request-rate limit.",
  },
  'job-failed': {
    status: 502,
    title: 'Job failed',
    description:
      'The job ran and failed; error_category says why and the job stays readable at /api/v1/jobs/{job_id}.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description:
      'A dependency (Temporal or MongoDB) is not reachable, or the operator has not configured SECRETS_KEY, ' +
      'which storing a provider key or a webhook secret needs.',
  },
  internal: {
    status: 500,
    title: 'Internal server error',
    description: 'An unexpected error; it has been logged.',
  },
} as const;
export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export const problemTypeUri = (slug: string) => `/problems/${slug}`;

export interface ProblemInit {
  slug: ProblemSlug;
  detail: string;
  status?: number;
  title?: string;
  errors?: Problem['errors'];
  extra?: Pick<Problem, 'error_category' | 'job_id'>;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
}

/** An error a route throws to answer with a specific problem. */
export class ProblemError extends Error {
  constructor(readonly init: ProblemInit) {
    super(init.detail);
  }
}

export const notFound = (what: string) =>
  new ProblemError({ slug: 'not-found', detail: `${what} not found` });

/** The document found, or a 404 problem naming what was looked for (another tenant's is not found either). */
export function found<T>(doc: T | null | undefined, what: string): T {
  if (doc === null || doc === undefined) throw notFound(what);
  return doc;
}

export function problemBody(request: FastifyRequest, init: ProblemInit): Problem {
  const kind = PROBLEM_TYPES[init.slug];
  return {
    type: problemTypeUri(init.slug),
    title: init.title ?? kind.title,
    status: init.status ?? kind.status,
    detail: init.detail,
    instance: request.url.split('?')[0] ?? request.url,
    errors: init.errors ?? [],
    ...init.extra,
  };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, init: ProblemInit) {
  const body = problemBody(request, init);
  if (init.retryAfter !== undefined) reply.header('retry-after', String(init.retryAfter));
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

const CONTEXT_LOCATION: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function valueAt(root: unknown, path: string[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function validationProblem(request: FastifyRequest, error: FastifyError): ProblemInit {
  const context = error.validationContext ?? 'body';
  const source = {
    body: request.body,
    querystring: request.query,
    params: request.params,
    headers: request.headers,
  }[context];
  const errors = (error.validation ?? []).flatMap((issue) => {
    const path = issue.instancePath.split('/').filter(Boolean);
    const keys =
      issue.keyword === 'unrecognized_keys' ? ((issue.params as { keys?: string[] }).keys ?? []) : [];
    // An unknown key is reported at the key itself, so the caller sees which field to remove.
    const paths = keys.length > 0 ? keys.map((key) => [...path, key]) : [path];
    return paths.map((fullPath) => ({
      location: [CONTEXT_LOCATION[context] ?? context, ...fullPath].join('.'),
      message: keys.length > 0 ? 'unknown field' : (issue.message ?? 'invalid value'),
      value: valueAt(source, fullPath),
    }));
  });
  const names = errors.map((e) => e.location).join(', ');
  return { slug: 'validation-error', detail: `The request has invalid fields: ${names}`, errors };
}

function categorizedProblem(error: CategorizedError): ProblemInit {
  const status = CATEGORY_HTTP_STATUS[error.category];
  const slug: ProblemSlug =
    status === 422 ? 'validation-error' : status === 429 ? 'rate-limited' : 'job-failed';
  const location = typeof error.details?.location === 'string' ? error.details.location : undefined;
  return {
    slug,
    status,
    title: slug === 'job-failed' ? `Job failed: ${error.category}` : undefined,
    detail: error.message,
    errors: location ? [{ location, message: error.message, value: error.details?.value }] : [],
    extra: { error_category: error.category },
  };
}

function fastifyProblem(error: FastifyError): ProblemInit | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { slug: 'payload-too-large', detail: error.message };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { slug: 'unsupported-media-type', detail: error.message };
    case 'FST_ERR_RATE_LIMITED':
      return { slug: 'rate-limited', detail: error.message };
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return { slug: 'rate-limited', detail: error.message };
  if (status === 404) return { slug: 'not-found', detail: error.message };
  if (status >= 400 && status < 500) return { slug: 'bad-request', status, detail: error.message };
  return null;
}

/** Retry-After of a 503 for a database out of reach (a restart or a failover takes seconds). */
const DATABASE_RETRY_AFTER_S = 5;

export function registerProblemHandlers(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let init: ProblemInit | null;
    if (error instanceof ProblemError) init = error.init;
    else if (hasZodFastifySchemaValidationErrors(error)) init = validationProblem(request, error);
    else if (error instanceof CategorizedError) init = categorizedProblem(error);
    else if (error instanceof SecretsUnavailableError)
      init = { slug: 'service-unavailable', detail: error.message };
    else if (isDatabaseUnavailable(error))
      init = {
        slug: 'service-unavailable',
        detail:
          'The database is out of reach for a moment; retry (with the same Idempotency-Key for a POST).',
        retryAfter: DATABASE_RETRY_AFTER_S,
      };
    else if (isResponseSerializationError(error)) init = null;
    else init = fastifyProblem(error);
    if (!init) {
      request.log.error({ err: error }, 'unhandled error');
      init = { slug: 'internal', detail: 'An unexpected error occurred.' };
    }
    return sendProblem(request, reply, init);
  });
}
