// POST /jobs/{id}/cancel: a pending or running job's workflow is cancelled; the answer is the job after it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isFinal } from '../../../shared/reducers/job.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { JobSchema } from '../../../shared/schemas/job.js';
import { ProblemSchema, standardErrors } from '../../../shared/schemas/problem.js';
import type { ApiDeps } from '../../deps.js';
import { awaitJob } from '../../job-answer.js';
import { notFound, ProblemError } from '../../problem.js';
import { jobResource } from '../../views.js';

export const cancelRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/jobs/:id/cancel',
      {
        schema: {
          summary: 'Cancel a pending or running job',
          description:
            "Cancels the job's workflow: pages in flight end cleanly (recorded as skipped) and the job ends " +
            'cancelled. Answers the job; a job that already ended is a 409 problem.',
          tags: ['jobs'],
          params: IdParamsSchema,
          response: { 200: JobSchema, 409: ProblemSchema, ...standardErrors },
        },
      },
      async (request) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        if (isFinal(job.status)) {
          throw new ProblemError({
            slug: 'conflict',
            detail: `the job already ended (${job.status})`,
            extra: { job_id: job.id },
          });
        }
        await deps.temporal.workflow.getHandle(job.workflow_id).cancel();
        const after = await awaitJob(deps, job, 10_000);
        return jobResource(deps, after);
      },
    );
  };
