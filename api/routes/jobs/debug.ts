// GET /jobs/{id}/debug-capture.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { DebugCaptureReportSchema } from '../../../shared/schemas/debug.js';
import { standardErrors } from '../../../shared/schemas/problem.js';
import type { ApiDeps } from '../../deps.js';
import { notFound } from '../../problem.js';

export const debugRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/jobs/:id/debug-capture',
      {
        schema: {
          summary: 'Model requests and responses of a job run with capture_debug',
          tags: ['jobs'],
          params: IdParamsSchema,
          response: { 200: DebugCaptureReportSchema, ...standardErrors },
        },
      },
      async (request) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        const captures = job.capture_debug ? await deps.debug.list(job.id) : [];
        const sum = (f: (c: (typeof captures)[number]) => number) => captures.reduce((n, c) => n + f(c), 0);
        return {
          api_version: 'v1',
          job_id: job.id,
          job_type: job.type,
          enabled: job.capture_debug,
          is_byok: captures.some((c) => c.is_byok),
          total_cost_usd: Math.round(sum((c) => c.response.cost_usd) * 1e9) / 1e9,
          total_duration_ms: sum((c) => c.response.duration_ms),
          total_requests: captures.length,
          total_tokens_in: sum((c) => c.response.input_tokens),
          total_tokens_out: sum((c) => c.response.output_tokens),
          captures,
        };
      },
    );
  };
