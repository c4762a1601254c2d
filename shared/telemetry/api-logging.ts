// The API's log lines: pino JSON (Fastify's logger), secrets redacted, and each request's lines carrying its
// request id (Fastify's reqId), its trace (trace_id, span_id, with tracing on) and, once known, its tenant
// and job. Tenant and job are learned after the request's child logger exists, so they are kept beside it and
// merged into each line by a pino mixin.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Writable } from 'node:stream';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { JobContext } from './job-context.js';
import { scrubSecrets } from './redact.js';

type LogFields = JobContext & { workflowId?: string };

const fieldsByLogger = new WeakMap<object, LogFields>();
const requestLogger = new AsyncLocalStorage<object>();

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  '*.authorization',
  '*.api_key',
  '*.apiKey',
  '*.secret',
  '*.password',
];

/** Fastify's `logger` option: false when LOG_LEVEL is silent. */
export function apiLoggerOptions(config: Config, stream?: Writable) {
  if (config.LOG_LEVEL === 'silent') return false;
  return {
    level: config.LOG_LEVEL,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    mixin: (_merge: object, _level: number, logger: object) => ({
      ...traceFields(),
      ...fieldsByLogger.get(logger),
    }),
    hooks: { streamWrite: scrubSecrets },
    ...(stream ? { stream } : {}),
  };
}

/** The trace and span a line was written in (with tracing on), to find the request's trace from its logs. */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/** Adds job fields to every later line of this (request) logger; undefined ones are skipped. */
export function annotateLog(logger: object, fields: LogFields): void {
  const defined = Object.entries(fields).filter(([, v]) => typeof v === 'string');
  if (defined.length > 0)
    fieldsByLogger.set(logger, { ...fieldsByLogger.get(logger), ...Object.fromEntries(defined) });
}

/** Adds job fields to the lines of the request being handled, if any (e.g. from a Temporal interceptor). */
export function annotateCurrentRequest(fields: LogFields): void {
  const logger = requestLogger.getStore();
  if (logger) annotateLog(logger, fields);
}

/**
 * After authentication: the tenant, and the job a /jobs/{id} route is about, go on the request's lines, and
 * the request's logger is reachable from code it calls (annotateCurrentRequest).
 */
export function registerRequestLogContext(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const tenantId = (request as { tenant?: { _id?: string } | null }).tenant?._id;
    const id = (request.params as { id?: unknown } | undefined)?.id;
    annotateLog(request.log, {
      tenantId,
      jobId: typeof id === 'string' && id.startsWith('job_') ? id : undefined,
    });
    requestLogger.run(request.log, done);
  });
}
