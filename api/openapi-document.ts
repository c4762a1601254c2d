// The served OpenAPI document, finished from what the routes declare: what every route of the API answers
// the same way (errors the framework gives before a route runs, the rate-limit headers, problem media types)
// is added here once, so each route declares only its own responses and the document stays exact.
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPES } from './problem.js';

/** The version of this document (info.version), which GET /api/v1/health reports too. */
export const API_DOCUMENT_VERSION = '1.0.0';

interface Response {
  description?: string;
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}
interface Operation {
  description?: string;
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
/** Sent on every answer under /api (api/compat/version.ts). */
const API_VERSION_HEADERS = {
  'X-API-Version': {
    description: 'The API version the answer is shaped by: v1 (this document) or refyne (see ApiVersion).',
    schema: { type: 'string', enum: ['v1', 'refyne'] },
  },
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
  const api = path.startsWith('/api/');
  const add = (status: string) => {
    responses[status] ??= problemResponse(status);
  };
  // The framework refuses these before the route runs, on any route that could receive them.
  if (api) add('400');
  if (api && BODY_METHODS.has(method)) add('415');
  for (const [status, response] of Object.entries(responses)) {
    // Error responses are problem documents: the document says so with the right media type.
    const json = response.content?.['application/json'];
    if (Number(status) >= 400 && json && response.content)
      response.content = { [PROBLEM_CONTENT_TYPE]: json };
    if (!response.description || response.description === 'Default Response') {
      response.description = Number(status) >= 400 ? problemResponse(status).description : 'Success';
    }
    if (!api) continue; // outside /api/v1 (probes, signed downloads): no key, no version
    response.headers = { ...API_VERSION_HEADERS, ...response.headers };
    if (status === '401') continue; // not authenticated: no rate limit applies
    response.headers = {
      ...RATE_LIMIT_HEADERS,
      ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
      ...response.headers,
    };
  }
}

/** What an operation's description adds about another API version (api/compat: refyneNote). */
export type VersionNote = (method: string, path: string) => string | null;

function noteVersion(operation: Operation, note: string | null) {
  // A route that describes its refyne answer itself says more than the note would.
  if (!note || operation.description?.includes('refyne')) return;
  operation.description = operation.description ? `${operation.description}\n\n${note}` : note;
}

export function finishDocument<T extends Record<string, unknown>>(document: T, versionNote?: VersionNote): T {
  const paths = (document.paths ?? {}) as Paths;
  const components = ((document.components as { schemas?: Record<string, JsonSchema> } | undefined)
    ?.schemas ?? {}) as Record<string, JsonSchema>;
  const nullable = new OptionalNulls(components);
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      finishOperation(path, method, operation);
      nullable.requestBody(operation.requestBody);
      if (versionNote) noteVersion(operation, versionNote(method, path));
    }
  }
  return document;
}

type JsonSchema = Record<string, unknown>;
const NULL_TYPE = { type: 'null' };
const ANNOTATIONS = ['description', 'default', 'example', 'examples', 'title'];

/**
 * An optional request field that does not take null is also documented as taking null, meaning absent, as
 * api/request-leniency.ts reads it: in every object a request body holds (nested objects, list items, union
 * members, the components they refer to).
 */
class OptionalNulls {
  private readonly seen = new Set<JsonSchema>();
  constructor(private readonly components: Record<string, JsonSchema>) {}

  requestBody(body: unknown) {
    const content = (body as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content;
    for (const media of Object.values(content ?? {})) if (media.schema) this.visit(media.schema);
  }

  private resolve(schema: JsonSchema): JsonSchema | undefined {
    const ref = schema.$ref;
    return typeof ref === 'string' ? this.components[ref.replace('#/components/schemas/', '')] : schema;
  }

  private acceptsNull(schema: JsonSchema): boolean {
    const resolved = this.resolve(schema);
    if (!resolved) return true;
    const { type, anyOf, oneOf, allOf, $ref, properties } = resolved;
    if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
    if ('const' in resolved) return resolved.const === null;
    if (Array.isArray(resolved.enum)) return resolved.enum.includes(null);
    const members = (anyOf ?? oneOf) as JsonSchema[] | undefined;
    if (members) return members.some((member) => this.acceptsNull(member));
    return type === undefined && $ref === undefined && allOf === undefined && properties === undefined;
  }

  private visit(schema: JsonSchema) {
    const target = this.resolve(schema);
    if (!target || this.seen.has(target)) return;
    this.seen.add(target);
    for (const key of ['anyOf', 'oneOf', 'allOf'])
      for (const member of (target[key] as JsonSchema[] | undefined) ?? []) this.visit(member);
    if (target.items && typeof target.items === 'object') this.visit(target.items as JsonSchema);
    const properties = target.properties as Record<string, JsonSchema> | undefined;
    if (!properties) return;
    const required = new Set((target.required as string[] | undefined) ?? []);
    // A property whose presence oneOf/anyOf/not test: null there is present (request-leniency.ts leaves it).
    const rules = [target.oneOf, target.anyOf, target.not ? [target.not] : undefined].flat() as (
      | JsonSchema
      | undefined
    )[];
    for (const rule of rules)
      for (const name of (rule?.required as string[] | undefined) ?? []) required.add(name);
    for (const [name, property] of Object.entries(properties)) {
      this.visit(property);
      if (required.has(name) || this.acceptsNull(property)) continue;
      const outer: JsonSchema = {};
      const inner: JsonSchema = { ...property };
      for (const key of ANNOTATIONS) {
        if (!(key in inner)) continue;
        outer[key] = inner[key];
        delete inner[key];
      }
      properties[name] = { ...outer, anyOf: [inner, NULL_TYPE] };
    }
  }
}
