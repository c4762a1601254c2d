// POST /jobs/{id}/retry: a new job that re-processes only the failed pages of a finished job, with the
// same options, linked to the original (retry_of). The original keeps its history.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { copyJobSecrets, hasJobKey } from '../../../shared/job-create.js';
import { isFinal } from '../../../shared/reducers/job.js';
import { retrySpec } from '../../../shared/rerun-spec.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { JobSchema, RetryQuerySchema } from '../../../shared/schemas/job.js';
import { jobStartErrors } from '../../../shared/schemas/problem.js';
import type { ApiDeps } from '../../deps.js';
import { runFollowUpJob, storedSpec } from '../../job-service.js';
import { notFound, ProblemError } from '../../problem.js';
import { earlierPages, RERUN_MAX_BYTES, RERUN_MAX_PAGES } from './earlier-pages.js';

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
            'retry_of set to the original, which is left as it was. 409 when the job has not ended, has no ' +
            `failed page, or has more than ${RERUN_MAX_PAGES} failed pages or ${RERUN_MAX_BYTES / 1024} KiB of ` +
            "their URLs (their references travel in the new job's workflow input). With ?refetch=false, a failed page whose fetch had succeeded (it failed at the model, " +
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
        const failed = await earlierPages(deps, original, (r) => r.status === 'failed', 'failed pages');
        const stored = await storedSpec(deps, original);
        if (failed.length === 0 || !stored) {
          throw new ProblemError({ slug: 'conflict', detail: 'the job has no failed page to retry' });
        }
        const spec = retrySpec(stored, {
          failedPages: failed,
          refetch: request.query.refetch,
          originalJobId: original.id,
        });
        // What the original job kept beside its spec: its one-job model key and webhook destinations.
        const beforeStart = (jobId: string) => copyJobSecrets(deps, original.id, jobId, hasJobKey(stored));
        return runFollowUpJob(deps, reply, request.tenant, { spec, beforeStart, retryOf: original.id });
      },
    );
  };
