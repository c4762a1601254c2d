// POST /jobs/{id}/retry: a new job that re-processes only the failed pages of a finished job, with the
// same options, linked to the original (retry_of). The original keeps its history.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { copyJobSecrets } from '../../../shared/job-create.js';
import { isFinal } from '../../../shared/reducers/job.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { JobSchema, RetryQuerySchema } from '../../../shared/schemas/job.js';
import { jobStartErrors } from '../../../shared/schemas/problem.js';
import { WORKFLOW_TYPES } from '../../../shared/temporal-names.js';
import type { ApiDeps } from '../../deps.js';
import { startOnPages, storedRequest } from '../../job-runner.js';
import { notFound, ProblemError } from '../../problem.js';
import { jobResource } from '../../views.js';

export const retryRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/jobs/:id/retry',
      {
        schema: {
          summary: 'Re-run the failed pages of a finished job',
          description:
            'Starts a new job (202, the new job) that processes only the pages that failed, with the same ' +
            'schema, cleaners, model settings and fetch mode, without following links again (a failed extract ' +
            'or analyze job runs again as it was asked). The new job has ' +
            'retry_of set to the original, which is left as it was. 409 when the job has not ended or has no ' +
            'failed page. With ?refetch=false, a failed page whose fetch had succeeded (it failed at the model, ' +
            'say) runs from the page the original job stored, making no request to the site.',
          tags: ['jobs'],
          params: IdParamsSchema,
          querystring: RetryQuerySchema,
          response: { 202: JobSchema, ...jobStartErrors },
        },
      },
      async (request, reply) => {
        const tenantId = request.tenant._id;
        const original = await deps.jobs.get(tenantId, request.params.id);
        if (!original) throw notFound(`job ${request.params.id}`);
        if (!isFinal(original.status)) {
          throw new ProblemError({ slug: 'conflict', detail: `the job has not ended (${original.status})` });
        }
        const failed = (await deps.jobs.results(original)).filter((r) => r.status === 'failed');
        const req = await storedRequest(deps, original.id);
        if (failed.length === 0 || !req) {
          throw new ProblemError({ slug: 'conflict', detail: 'the job has no failed page to retry' });
        }
        const hasKey = Boolean((req as { llm?: { hasKey?: boolean } }).llm?.hasKey);
        // Without a refetch, each failed page runs from what the original stored of it (fetched when it has none).
        const { refetch } = request.query;
        const stored = (pageId: string) =>
          refetch ? {} : { stored: { jobId: original.id, pageId, missing: 'fetch' as const } };
        // A re-extract's sources are not a retry's: it takes its pages from the job it retries.
        const { stored: _stored, reextractOf: _of, ...request0 } = req;
        // What the original job kept beside its request: its one-job model key and webhook destinations.
        const copyKey = (jobId: string) => copyJobSecrets(deps, original.id, jobId, hasKey);
        const common = {
          tenantId,
          type: original.type,
          url: original.url,
          captureDebug: original.capture_debug,
          idempotencyKey: null,
          retryOf: original.id,
          beforeStart: copyKey,
          workflowType: WORKFLOW_TYPES[original.type],
        };
        // A single-page job (extract, analyze) runs again as it was asked; a crawl re-runs its failed pages.
        const { job } = await startOnPages(
          deps,
          common,
          { request: request0, pages: failed, maxDepth: original.max_depth ?? 0, fromPage: stored },
          reply,
        );
        return reply.code(202).send(await jobResource(deps, job));
      },
    );
  };
