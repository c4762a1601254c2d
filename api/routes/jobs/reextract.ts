// POST /jobs/{id}/reextract: a new job that extracts the pages a finished job fetched again, from the page
// store (shared/store/pages.ts), with a new schema and optionally new cleaners and model settings — no
// request to the site. A crawl's re-extract is a crawl over the stored pages that follows no links; an
// extract's is an extract. The new job's request names the original (reextract_of).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { budgetInput } from '../../../shared/budget.js';
import { defaultChainFor } from '../../../shared/cleaners.js';
import { hasJobKey } from '../../../shared/job-create.js';
import { isFinal } from '../../../shared/reducers/job.js';
import { reextractSpec } from '../../../shared/rerun-spec.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { JobSchema, ReextractRequestSchema } from '../../../shared/schemas/job.js';
import { jobStartErrors } from '../../../shared/schemas/problem.js';
import type { ApiDeps } from '../../deps.js';
import { prepareJobRequest } from '../../job-requests.js';
import { runFollowUpJob, storedSpec } from '../../job-service.js';
import { notFound, ProblemError } from '../../problem.js';
import { earlierPages, RERUN_MAX_BYTES, RERUN_MAX_PAGES } from './earlier-pages.js';

export const reextractRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/jobs/:id/reextract',
      {
        schema: {
          summary: 'Extract the pages a job fetched again, with a new schema, without fetching them',
          description:
            'Starts a new job (202, the new job) that runs extraction over the pages the finished job fetched, ' +
            'as the page store kept them: no request to the site. Give a new schema (schema or schema_id) and ' +
            "optionally cleaner_chain, llm_config, structured_data, capture_debug and a budget; the rest is the original's. An " +
            "extract job's re-extract is an extract; a crawl's is a crawl over the same pages (completed and " +
            `failed, at most ${RERUN_MAX_PAGES} pages and ${RERUN_MAX_BYTES / 1024} KiB of their URLs) that follows no links. The new job has reextract_of set to ` +
            'the original. A page whose stored content is gone (pages are kept PAGE_RETENTION_DAYS) or was never ' +
            'fetched fails with error_category content_expired. 409 when the job has not ended, has no page, is ' +
            'an analyze or map job, or has too many pages.',
          tags: ['jobs'],
          params: IdParamsSchema,
          body: ReextractRequestSchema,
          response: { 202: JobSchema, ...jobStartErrors },
        },
      },
      async (request, reply) => {
        const tenantId = request.tenant._id;
        const body = request.body;
        const original = await deps.jobs.get(tenantId, request.params.id);
        if (!original) throw notFound(`job ${request.params.id}`);
        if (original.type !== 'extract' && original.type !== 'crawl')
          throw conflict(`a ${original.type} job has no extracted pages to extract again`);
        if (!isFinal(original.status)) throw conflict(`the job has not ended (${original.status})`);
        const pages = await earlierPages(deps, original, (r) => r.status !== 'skipped', 'pages');
        const stored = await storedSpec(deps, original);
        if (pages.length === 0 || !stored || (stored.kind !== 'extract' && stored.kind !== 'crawl'))
          throw conflict('the job has no page to extract again');
        const prepared = await prepareJobRequest(deps, tenantId, body);
        // The original's one-job model key goes on with its model settings, unless new ones are given.
        const beforeStart = async (jobId: string) => {
          if (!body.llm_config && hasJobKey(stored)) {
            const key = await deps.llm.openJobKey(original.id);
            if (key) await deps.llm.putJobKey(jobId, key);
          }
          await prepared.beforeStart?.(jobId);
        };
        const changes = {
          schema: prepared.schema,
          cleanerChain: body.cleaner_chain ?? defaultChainFor(prepared.schema),
          ...(body.llm_config ? { llm: prepared.llm } : {}),
          ...(body.structured_data === undefined ? {} : { structuredData: body.structured_data }),
          ...(body.capture_debug === undefined ? {} : { captureDebug: body.capture_debug }),
          ...(body.max_cost_usd === undefined && body.max_tokens === undefined ? {} : budgetInput(body)),
        };
        const spec = reextractSpec(stored, { pages, originalJobId: original.id, changes });
        return runFollowUpJob(deps, reply, request.tenant, { spec, beforeStart });
      },
    );
  };

function conflict(detail: string) {
  return new ProblemError({ slug: 'conflict', detail });
}
