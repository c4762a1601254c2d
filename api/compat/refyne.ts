// API version `refyne` on the way out: each JSON answer of a request in that version is reshaped into the
// product's model (refyne-views.ts), a delete answers 200 {"success": true} instead of 204, and a problem
// document keeps only the product's ErrorModel fields, with absolute type and instance URIs and validation
// errors as 400 (the status the product's SDKs read as a validation error). Streamed bodies (results,
// crawl map, the job stream) are shaped by their routes, which read request.apiVersion.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RefyneDeletedSchema, RefyneProblemSchema } from '../../shared/schemas/refyne/resources.js';
import { originOf } from '../origin.js';
import { refyneView } from './refyne-views.js';

type Json = Record<string, unknown>;

function problem(request: FastifyRequest, reply: FastifyReply, payload: Json, origin: string): unknown {
  if (reply.statusCode === 422) reply.code(400);
  const absolute = (value: unknown) =>
    typeof value === 'string' && value.startsWith('/') ? `${origin}${value}` : value;
  return RefyneProblemSchema.parse({
    ...payload,
    status: reply.statusCode,
    type: absolute(payload.type) ?? 'about:blank',
    instance: absolute(payload.instance ?? request.url.split('?')[0]),
  });
}

function answer(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (payload === null && reply.statusCode === 204 && request.method === 'DELETE') {
    reply.code(200);
    return RefyneDeletedSchema.parse({ success: true });
  }
  const view = refyneView(request.method, request.routeOptions.url, reply.statusCode);
  if (!view || payload === null || typeof payload !== 'object') return payload;
  return view.schema.parse(view.from ? view.from(payload as Json) : payload);
}

export function registerRefyneAnswers(app: FastifyInstance, publicBaseUrl?: string) {
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (request.apiVersion !== 'refyne') return payload;
    // The route's v1 response schema no longer describes the body: plain JSON from here.
    reply.serializer(JSON.stringify);
    if (reply.statusCode >= 400 && payload !== null && typeof payload === 'object')
      return problem(request, reply, payload as Json, originOf(request, publicBaseUrl));
    return answer(request, reply, payload);
  });
}
