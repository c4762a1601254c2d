// GET /jobs/{id}/pages/{page_id}/screenshot: a page's screenshot, read from the content store. Scoped to the
// caller's tenant: another tenant's job is a 404, like a page or a screenshot that does not exist (or expired).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { standardErrors } from '../../../shared/schemas/problem.js';
import {
  ScreenshotParamsSchema,
  ScreenshotQuerySchema,
  ScreenshotResponseSchema,
} from '../../../shared/schemas/screenshots.js';
import { ContentStore } from '../../../shared/store/contents.js';
import { ScreenshotStore } from '../../../shared/store/screenshots.js';
import type { ApiDeps } from '../../deps.js';
import { notFound } from '../../problem.js';

export const screenshotRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const screenshots = new ScreenshotStore(new ContentStore(deps.db));
    app.get(
      '/jobs/:id/pages/:page_id/screenshot',
      {
        schema: {
          summary: "Read a page's screenshot (PNG)",
          description:
            'A screenshot taken by formats ["screenshot"] or a screenshot action of the page. The page\'s metadata ' +
            '(metadata.screenshots of POST /extract, screenshots in GET /jobs/{id}/results) lists them with their ' +
            "sizes and URLs. 404 when the job is not the caller's, the page took no such screenshot, or it is " +
            'older than PAGE_RETENTION_DAYS.',
          tags: ['jobs'],
          params: ScreenshotParamsSchema,
          querystring: ScreenshotQuerySchema,
          response: { 200: ScreenshotResponseSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const { id, page_id } = request.params;
        const job = await deps.jobs.get(request.tenant._id, id);
        if (!job) throw notFound(`job ${id}`);
        const png = await screenshots.get(job.id, page_id, request.query.index);
        if (!png) throw notFound(`screenshot ${request.query.index} of page ${page_id} of job ${id}`);
        // Fastify sends a Buffer as it is; the response schema only documents it.
        return reply
          .type('image/png')
          .header('cache-control', 'private, max-age=3600')
          .send(png as unknown as string);
      },
    );
  };
