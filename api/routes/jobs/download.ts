// Signed download links: GET /api/v1/jobs/{id}/download (authenticated) hands out a URL of the service itself,
// GET /downloads/{token}, that serves the job's results for an hour to whoever holds it, without an API key.
// The token is bound to the tenant and the job (shared/download-links.ts); the download counts against the
// tenant's rate limit like its API requests.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  DOWNLOAD_KEY_PURPOSE,
  DOWNLOAD_TTL_MS,
  readDownload,
  signDownload,
} from '../../../shared/download-links.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { ProblemSchema, standardErrors } from '../../../shared/schemas/problem.js';
import {
  RESULT_FORMATS,
  RESULT_MEDIA_TYPES,
  ResultsResponseSchema,
} from '../../../shared/schemas/results.js';
import { SecretBox } from '../../../shared/secrets.js';
import type { ApiDeps } from '../../deps.js';
import { originOf } from '../../origin.js';
import { notFound, ProblemError } from '../../problem.js';
import { streamItems } from '../../streamed-body.js';
import { jobResult } from '../../views.js';

const DownloadQuerySchema = z.object({
  format: z.enum(RESULT_FORMATS).default('json').meta({ description: 'json (default), jsonl or yaml' }),
});

const DownloadLinkSchema = z
  .object({
    job_id: z.string(),
    format: z.enum(RESULT_FORMATS),
    download_url: z.string().meta({
      description:
        "A URL of this service that serves the job's results in the format, without an API key, until " +
        'expires_at. It names no API key; it is bound to this job of your tenant.',
    }),
    expires_at: z.string().meta({ description: 'One hour after the link was made (RFC 3339, UTC)' }),
  })
  .meta({ id: 'DownloadLink' });

const TokenParamsSchema = z.object({ token: z.string().min(1).max(512) });

const keyOf = (deps: ApiDeps) => new SecretBox(deps.config.SECRETS_KEY).derivedKey(DOWNLOAD_KEY_PURPOSE);

/** GET /jobs/{id}/download, under /api/v1. */
export const downloadLinkRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/jobs/:id/download',
      {
        schema: {
          summary: "A signed URL to download a job's results, valid for an hour",
          description:
            "The URL (GET /downloads/{token} of this service) serves the job's page results as " +
            'GET /jobs/{id}/results does, as an attachment in the format asked, to anyone holding it, until ' +
            'expires_at; after that it answers 410. It holds no API key and opens only this job of your ' +
            "tenant; downloads count against your tenant's rate limit. Needs the operator's SECRETS_KEY (503 " +
            "without). refyne version: the product's GetJobResultsDownloadOutputBody ({job_id, download_url, " +
            'expires_at}).',
          tags: ['jobs'],
          params: IdParamsSchema,
          querystring: DownloadQuerySchema,
          response: { 200: DownloadLinkSchema, 503: ProblemSchema, ...standardErrors },
        },
      },
      async (request) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        const expiresAt = Date.now() + DOWNLOAD_TTL_MS;
        const { format } = request.query;
        const token = signDownload(keyOf(deps), {
          tenantId: job.tenant_id,
          jobId: job.id,
          format,
          expiresAt,
        });
        return {
          job_id: job.id,
          format,
          download_url: `${originOf(request, deps.config.PUBLIC_BASE_URL)}/downloads/${token}`,
          expires_at: new Date(expiresAt).toISOString(),
        };
      },
    );
  };

/** GET /downloads/{token}, outside /api/v1: the signature is the credential. */
export const signedDownloadRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/downloads/:token',
      {
        schema: {
          summary: "A job's results through a signed link (no API key)",
          description:
            'What GET /api/v1/jobs/{id}/download handed out: the results in its format, as an attachment. A ' +
            'token that is not genuine, or whose job is gone, is a 404; one past its expiry a 410; one longer ' +
            'than 512 characters (never a token) a 422.',
          tags: ['jobs'],
          security: [],
          params: TokenParamsSchema,
          response: {
            200: ResultsResponseSchema,
            404: ProblemSchema,
            410: ProblemSchema,
            422: ProblemSchema,
            429: ProblemSchema,
            503: ProblemSchema,
          },
        },
        // Before the rate limit (preParsing): the token's tenant is the one whose limit the download uses.
        onRequest: async (request) => {
          const { token } = request.params as { token: string };
          const grant = readDownload(keyOf(deps), token);
          if (!grant) throw notFound('download link');
          if (grant.expiresAt <= Date.now())
            throw new ProblemError({ slug: 'link-expired', detail: 'This download link has expired.' });
          const tenant = await deps.tenants.getTenant(grant.tenantId);
          if (!tenant) throw notFound('download link');
          request.tenant = tenant;
        },
      },
      async (request, reply) => {
        const grant = readDownload(keyOf(deps), request.params.token);
        const job = grant && (await deps.jobs.get(request.tenant._id, grant.jobId));
        if (!grant || !job) throw notFound('download link');
        const extension = { json: 'json', jsonl: 'jsonl', yaml: 'yaml' }[grant.format];
        reply
          .type(`${RESULT_MEDIA_TYPES[grant.format][0]}; charset=utf-8`)
          .header('content-disposition', `attachment; filename="${job.id}.${extension}"`)
          .header('cache-control', 'private, no-store');
        const body = streamItems(deps.jobs.resultBatches(job), grant.format, (page) => jobResult(page));
        return reply.send(body as never);
      },
    );
  };
