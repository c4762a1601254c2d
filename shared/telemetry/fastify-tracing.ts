// The API's request spans (@fastify/otel): one span per request, named `<method> <route>`, and one for the
// route handler, in whose context the handler runs (so the workflow start is its child). Hook spans are off;
// docs and health checks are not traced.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyPluginCallback } from 'fastify';

const UNTRACED = /^\/(docs|healthz|readyz)\b/;

export function fastifyTracing(): FastifyPluginCallback {
  const instrumentation = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    ignorePaths: ({ url }) => UNTRACED.test(url),
    requestHook: (span, request) => span.updateName(`${request.method} ${request.routeOptions.url ?? ''}`),
    // Handlers of anonymous route plugins would otherwise be named after the plugin's source text.
    lifecycleHook: (span, { hookName, request }) => {
      const name = `${hookName} ${request.method} ${request.routeOptions.url ?? ''}`;
      span.updateName(name);
      span.setAttribute('hook.name', name);
    },
  });
  return instrumentation.plugin();
}
