// Job reads, always scoped to the caller's tenant: another tenant's job is a 404.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { JobListQuerySchema, JobListSchema, JobSchema } from '../../../shared/schemas/job.js';
import { standardErrors } from '../../../shared/schemas/problem.js';
import { JOB_FILTER_WINDOW } from '../../../shared/store/jobs.js';
import type { ApiDeps } from '../../deps.js';
import { notFound } from '../../problem.js';
import { jobResource } from '../../views.js';

export const jobReadRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/jobs',
      {
        schema: {
          summary: "List the caller's jobs, newest first",
          description:
            'type and status keep only the jobs of that type and in that status, among your newest ' +
            `${JOB_FILTER_WINDOW.toLocaleString('en')} jobs; limit and offset then count the jobs kept.`,
          tags: ['jobs'],
          querystring: JobListQuerySchema,
          response: { 200: JobListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const { limit, offset, type, status } = request.query;
        const jobs = await deps.jobs.list(request.tenant._id, limit, offset, { type, status });
        return { jobs: await Promise.all(jobs.map((job) => jobResource(deps, job))) };
      },
    );

    app.get(
      '/jobs/:id',
      {
        schema: {
          summary: 'Read one job',
          tags: ['jobs'],
          params: IdParamsSchema,
          response: { 200: JobSchema, ...standardErrors },
        },
      },
      async (request) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        return jobResource(deps, job);
      },
    );
  };
