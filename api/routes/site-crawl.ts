// POST /api/v1/sites/{id}/crawl: a crawl of a stored site with its saved settings, overridable per request.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdempotencyHeadersSchema, IdParamsSchema } from '../../shared/schemas/common.js';
import { CrawlQuerySchema, CrawlResponseSchema, SiteCrawlRequestSchema } from '../../shared/schemas/crawl.js';
import { jobStartErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
import { runCrawl } from '../job-service.js';
import { notFound } from '../problem.js';
import { siteCrawlRequest } from '../site-crawl-request.js';

export const siteCrawlRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/sites/:id/crawl',
      {
        schema: {
          summary: 'Crawl a stored site with its saved settings',
          description:
            "Starts a crawl of the site's url with its crawl_options, fetch_mode and default_schema_id; anything " +
            'in the body overrides them (options one by one). Answers as POST /crawl: 202 with the job, or with ' +
            "wait=true 200 with data when the job ends within timeout. Another tenant's site is 404.",
          tags: ['sites', 'crawl'],
          params: IdParamsSchema,
          headers: IdempotencyHeadersSchema,
          querystring: CrawlQuerySchema,
          body: SiteCrawlRequestSchema,
          response: { 200: CrawlResponseSchema, 202: CrawlResponseSchema, ...jobStartErrors },
        },
      },
      async (request, reply) => {
        const site = await deps.sites.get(request.tenant._id, request.params.id);
        if (!site) throw notFound(`site ${request.params.id}`);
        return runCrawl(deps, reply, {
          tenant: request.tenant,
          idempotencyKey: request.headers['idempotency-key'] ?? null,
          query: request.query,
          body: siteCrawlRequest(site, request.body),
          siteId: site.id,
        });
      },
    );
  };
