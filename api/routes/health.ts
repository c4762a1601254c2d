// Liveness and readiness; neither needs a key.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ProblemSchema } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
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
        const checks = {
          temporal: await check(() => deps.temporal.workflowService.getSystemInfo({})),
          mongodb: await check(() => deps.db.command({ ping: 1 })),
        };
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
