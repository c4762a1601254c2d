// OpenTelemetry for one process (the API or the worker): a tracer provider, W3C trace-context propagation,
// spans for outbound HTTP (undici, which both the guarded dispatcher and the model SDKs' fetch use), and an
// exporter: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else JSON lines in TRACES_FILE.
// The Temporal and Fastify parts hang off the returned handle (worker/interceptors.ts, api/app.ts).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.js';
import { JsonLinesSpanExporter } from './jsonl-span-exporter.js';
import { SelectivePropagator } from './propagation.js';

export interface Tracing {
  /** Every finished span goes through it; the worker hands it workflow spans too. */
  processor: SpanProcessor;
  resource: Resource;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** `service.name` unless OTEL_SERVICE_NAME is set. */
  serviceName: string;
  /** Export here instead, span by span (tests pass an InMemorySpanExporter). */
  exporter?: SpanExporter;
}

/** Starts tracing for this process, or returns null when OTEL_SDK_DISABLED is set. Call once, first. */
export function startTracing(config: Config, options: TracingOptions): Tracing | null {
  if (config.OTEL_SDK_DISABLED) return null;
  const resource = new Resource({ 'service.name': config.OTEL_SERVICE_NAME ?? options.serviceName });
  const processor = options.exporter
    ? new SimpleSpanProcessor(options.exporter)
    : // Batches leave the request path; an unreachable collector drops spans, never fails a job.
      new BatchSpanProcessor(defaultExporter(config));
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [processor],
    textMapPropagator: new SelectivePropagator(),
    instrumentations: [new UndiciInstrumentation({ startSpanHook: outboundUrlAttributes })],
  });
  sdk.start();
  return {
    processor,
    resource,
    flush: () => processor.forceFlush().catch(() => undefined),
    shutdown: () => sdk.shutdown().catch(() => undefined),
  };
}

/**
 * Outbound request spans keep the origin and path but not the query string: webhook and model URLs may
 * carry tokens there. (A secret in a URL's path, e.g. some chat webhooks, still shows: keep those out of
 * paths, or turn tracing off.)
 */
function outboundUrlAttributes(request: { origin: string; path: string }): Record<string, string> {
  const query = request.path.indexOf('?');
  const path = query >= 0 ? request.path.slice(0, query) : request.path;
  return { 'url.full': `${request.origin}${path}`, 'url.query': query >= 0 ? '?[redacted]' : '' };
}

function defaultExporter(config: Config): SpanExporter {
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT) {
    return new OTLPTraceExporter({
      url: `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces`,
    });
  }
  const file = config.TRACES_FILE ?? join(config.DATA_DIR, 'traces.jsonl');
  if (file !== '-') mkdirSync(dirname(file), { recursive: true });
  return new JsonLinesSpanExporter(file);
}
