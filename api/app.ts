// The API's composition root: deps in, a Fastify instance (not yet listening) out.
import type { Writable } from 'node:stream';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceMetrics } from '../shared/metrics/registry.js';
import { ConsoleSessionStore } from '../shared/store/console-sessions.js';
import { apiLoggerOptions, registerRequestLogContext } from '../shared/telemetry/api-logging.js';
import { fastifyTracing } from '../shared/telemetry/fastify-tracing.js';
import { registerMetrics } from '../shared/telemetry/metrics-route.js';
import type { Tracing } from '../shared/telemetry/tracing.js';
import { API_PREFIX, createAuthenticator, frameworkErrors, MAX_PARAM_LENGTH, registerAuth } from './auth.js';
import { registerRefyneAnswers } from './compat/refyne.js';
import { refyneNote } from './compat/refyne-views.js';
import { registerApiVersion } from './compat/version.js';
import { consoleRoutes } from './console/routes.js';
import { createSessionAuthenticator } from './console/session-auth.js';
import type { ApiDeps } from './deps.js';
import { startJobSweeper } from './job-sweeper.js';
import { registerJsonParser } from './json-body.js';
import { mcpRoutes } from './mcp/route.js';
import { API_DOCUMENT_VERSION, finishDocument } from './openapi-document.js';
import { PROBLEM_TYPES, ProblemError, problemTypeUri, registerProblemHandlers } from './problem.js';
import { registerRequestLeniency } from './request-leniency.js';
import { analyzeRoutes } from './routes/analyze.js';
import { cleanerRoutes } from './routes/cleaners.js';
import { crawlRoutes } from './routes/crawl.js';
import { extractRoutes } from './routes/extract.js';
import { apiHealthRoutes, healthRoutes } from './routes/health.js';
import { signedDownloadRoutes } from './routes/jobs/download.js';
import { jobRoutes } from './routes/jobs/index.js';
import { keyRoutes } from './routes/keys.js';
import { llmRoutes } from './routes/llm.js';
import { llmModelRoutes } from './routes/llm-models.js';
import { mapRoutes } from './routes/map.js';
import { monitorRoutes } from './routes/monitors.js';
import { pricingRoutes } from './routes/pricing.js';
import { schemaRoutes } from './routes/schemas.js';
import { siteCrawlRoutes } from './routes/site-crawl.js';
import { siteSessionRoutes } from './routes/site-session.js';
import { siteRoutes } from './routes/sites.js';
import { usageRoutes } from './routes/usage.js';
import { webhookRoutes } from './routes/webhooks.js';
import { registerScopeCheck } from './scopes.js';

export const API_VERSION = API_DOCUMENT_VERSION;

const API_DESCRIPTION = `Fetches web pages and returns structured data extracted by a language model.

Every /api/v1 route needs \`Authorization: Bearer <API key>\` (401 otherwise). Errors are
\`application/problem+json\` (RFC 9457) with \`type, title, status, detail, instance, errors[{location, message, value}]\`;
a validation error (422) names each bad field (\`body.url\`, \`query.limit\`...). Request bodies over the body limit
are 413, a body that is not JSON (or nested deeper than 64 arrays and objects) 400, another content type 415. A known path under a method it does not take is
405 (Allow lists the methods). A well-formed request that conflicts with stored state is 409 (an Idempotency-Key
used for another kind of job, no usable model in the tenant's settings). Each tenant has a request-rate limit per
minute (429 with Retry-After); answers carry X-RateLimit-Limit, -Remaining and -Reset. A client address that
sent too many unknown keys is refused (429 with Retry-After) until its window ends, whatever key it sends. Timestamps are RFC 3339
UTC with milliseconds. Another tenant's resources answer 404.

**API keys have scopes** (full, read, extract, crawl, jobs; see ApiKeyScope): a request outside its key's scopes
is a 403 problem naming the scope it needs.

**API versions.** Every answer says in its X-API-Version header which version shaped it. v1, the default, is this
document. refyne shapes every answer exactly as the models of the Refyne product's published SDKs declare it, so
those SDKs (e.g. the Python package refyne) work unchanged: no field beyond the product's, the results endpoint as
\`{job_id, status, page_count, results, merged}\`, deletes as 200 \`{"success": true}\`, validation errors as 400
problems with absolute type URIs. A key is pinned to a version when it is created (POST /keys api_version,
default the version of the request creating it); a request may name another in its X-API-Version header. Each
route's description says what refyne changes; routes the product does not have answer as in v1.

**Requests built from the Refyne product's models are understood** in every version: an explicit null for an
optional field that does not take null means the field is absent (the document marks such fields nullable); the
top-level camelCase names fetchMode, llmConfig and webhookUrl (sent by one of the product's SDKs) mean
fetch_mode, llm_config and webhook_url (giving both spellings is a 422). Other unknown fields are still a 422.
The product's options that go beyond this interface are honoured or refused with a 422 that says why (see
CrawlOptions, LlmKeyRequest default_model).`;

export interface AppOptions {
  /** From startTracing: a span per request (the parent of the workflow start). */
  tracing?: Tracing | null;
  /** Where the JSON log lines go (default stdout). */
  logStream?: Writable;
  /** The registry GET /metrics serves (default: a new one for this app). */
  metrics?: ServiceMetrics;
}

export async function buildApp(deps: ApiDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  // The console's sessions authenticate like API keys (api/console/session-auth.ts).
  const consoleSessions = new ConsoleSessionStore(deps.db);
  const sessionAuth = createSessionAuthenticator(consoleSessions, deps.tenants, deps.config.PUBLIC_BASE_URL);
  const authenticate = createAuthenticator(deps, undefined, sessionAuth);
  const app = Fastify({
    logger: apiLoggerOptions(deps.config, options.logStream),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    trustProxy: false,
    genReqId: () => crypto.randomUUID(),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrors(authenticate),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerProblemHandlers(app);
  registerJsonParser(app);
  if (options.tracing) await app.register(fastifyTracing());

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Web data extraction service', version: API_VERSION, description: API_DESCRIPTION },
      servers: [{ url: deps.config.PUBLIC_BASE_URL ?? `http://${deps.config.HOST}:${deps.config.PORT}` }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  const sweeper = startJobSweeper(deps, app.log);
  app.addHook('onClose', () => sweeper.stop());
  await registerAuth(app, deps, authenticate);
  registerApiVersion(app);
  registerScopeCheck(app);
  registerRefyneAnswers(app, deps.config.PUBLIC_BASE_URL);
  registerRequestLeniency(app);
  registerRequestLogContext(app);

  await app.register(healthRoutes(deps));
  await app.register(consoleRoutes(deps, authenticate, sessionAuth, consoleSessions)); // the console at /
  await app.register(signedDownloadRoutes(deps)); // GET /downloads/{token}: signed, no API key
  // MCP over Streamable HTTP at /mcp (same keys and rate limit; left out of the OpenAPI document).
  await app.register(mcpRoutes());
  registerMetrics(app, deps, options.metrics); // GET /metrics: outside /api/v1; METRICS_TOKEN, or loopback only
  await app.register(
    async (v1) => {
      v1.get('/openapi.json', { schema: { hide: true } }, async () =>
        finishDocument(structuredClone(app.swagger()) as Record<string, unknown>, refyneNote),
      );
      await v1.register(apiHealthRoutes(deps));
      await v1.register(extractRoutes(deps));
      await v1.register(crawlRoutes(deps));
      await v1.register(analyzeRoutes(deps));
      await v1.register(mapRoutes(deps));
      await v1.register(cleanerRoutes(deps));
      await v1.register(jobRoutes(deps));
      await v1.register(keyRoutes(deps));
      await v1.register(llmRoutes(deps));
      await v1.register(llmModelRoutes(deps));
      await v1.register(webhookRoutes(deps));
      await v1.register(siteRoutes(deps));
      await v1.register(siteCrawlRoutes(deps));
      await v1.register(siteSessionRoutes(deps));
      await v1.register(monitorRoutes(deps));
      await v1.register(schemaRoutes(deps));
      await v1.register(pricingRoutes(deps));
      await v1.register(usageRoutes(deps));
    },
    { prefix: API_PREFIX },
  );

  app.get(
    '/problems/:slug',
    { schema: { hide: true, params: z.object({ slug: z.string() }) } },
    async (request) => {
      const kind = PROBLEM_TYPES[request.params.slug as keyof typeof PROBLEM_TYPES];
      if (!kind)
        throw new ProblemError({ slug: 'not-found', detail: `no problem type ${request.params.slug}` });
      return { type: problemTypeUri(request.params.slug), ...kind };
    },
  );
  return app;
}
