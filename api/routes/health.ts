// Liveness and readiness (neither needs a key), and GET /api/v1/health for API clients (any key).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ProblemSchema, standardErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
import { API_DOCUMENT_VERSION } from '../openapi-document.js';
import { ProblemError } from '../problem.js';

const CHECK_TIMEOUT_MS = 3000;

async function check(fn: () => Promise<unknown>): Promise<string> {
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
    ]);
    return 'ok';
  } catch (err) {
    return `unavailable: ${(err as Error).message}`;
  }
}

const ReadySchema = z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.string()) });

const ApiHealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({
      description: 'ok when Temporal and MongoDB answer; degraded when one does not (checks says which)',
    }),
    version: z.string().meta({ description: "The API document's version (info.version)", example: '1.0.0' }),
    api_version: z.enum(['v1', 'refyne']).meta({ description: 'The API version of this answer' }),
    checks: z
      .record(z.string(), z.string())
      .meta({ description: 'Per dependency: ok, or why it is unavailable' }),
  })
  .meta({ id: 'ApiHealth' });

const dependencyChecks = async (deps: ApiDeps) => ({
  temporal: await check(() => deps.temporal.workflowService.getSystemInfo({})),
  mongodb: await check(() => deps.db.command({ ping: 1 })),
});

/** GET /api/v1/health: what the Refyne product's SDKs call (HealthCheckOutputBody), authenticated like the API. */
export const apiHealthRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/health',
      {
        schema: {
          summary: 'Service health, for API clients',
          description:
            'Answers 200 whenever the API answers: status ok, or degraded when Temporal or MongoDB does not ' +
            'answer within 3 s (checks says which). Needs an API key of any scope and counts against the rate ' +
            'limit, as every /api/v1 route does; /healthz and /readyz are the keyless probes. refyne version: ' +
            "the product's HealthCheckOutputBody, {status, version}.",
          tags: ['health'],
          response: { 200: ApiHealthSchema, ...standardErrors },
        },
      },
      async (request) => {
        const checks = await dependencyChecks(deps);
        const ok = Object.values(checks).every((v) => v === 'ok');
        return {
          status: ok ? ('ok' as const) : ('degraded' as const),
          version: API_DOCUMENT_VERSION,
          api_version: request.apiVersion,
          checks,
        };
      },
    );
  };

export const healthRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/healthz',
      {
        schema: {
          summary: 'Liveness: the API process is up',
          tags: ['health'],
          security: [],
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: Temporal and MongoDB are reachable',
          tags: ['health'],
          security: [],
          response: { 200: ReadySchema, 503: ProblemSchema },
        },
      },
      async () => {
        const checks = await dependencyChecks(deps);
        const failing = Object.entries(checks).filter(([, v]) => v !== 'ok');
        if (failing.length > 0) {
          throw new ProblemError({
            slug: 'service-unavailable',
            detail: `Not ready: ${failing.map(([k, v]) => `${k} ${v}`).join('; ')}`,
            errors: failing.map(([k, v]) => ({ location: `dependency.${k}`, message: v })),
          });
        }
        return { status: 'ready' as const, checks };
      },
    );
  };
