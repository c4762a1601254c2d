// POST /crawl: a durable crawl job, answered at once (202) or waited on (wait=true). The job's own routes
// (cancel, crawl map, results…) are in routes/jobs/.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdempotencyHeadersSchema } from '../../shared/schemas/common.js';
import { CrawlQuerySchema, CrawlRequestSchema, CrawlResponseSchema } from '../../shared/schemas/crawl.js';
import { jobStartErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
import { runCrawl } from '../job-service.js';

export const crawlRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/crawl',
      {
        schema: {
          summary: 'Crawl a site from a seed URL and extract from every page',
          description:
            'Starts a durable crawl job. Without wait: 202 at once with job_id, status, status_url and ' +
            'queue_position. With wait=true: 200 with data (the page results) if the job ends within timeout ' +
            'seconds (10..120, default 120), else 202 and the job goes on. A client that disconnects while ' +
            'waiting does not affect the job. Links are followed by follow_selector / follow_pattern on the same ' +
            'site, next_selector paginates at the same depth; robots.txt is obeyed by default; URLs are normalised ' +
            'and never processed twice. Send an Idempotency-Key header to make retries safe.',
          tags: ['crawl'],
          querystring: CrawlQuerySchema,
          headers: IdempotencyHeadersSchema,
          body: CrawlRequestSchema,
          response: { 200: CrawlResponseSchema, 202: CrawlResponseSchema, ...jobStartErrors },
        },
      },
      async (request, reply) =>
        runCrawl(deps, reply, {
          tenant: request.tenant,
          idempotencyKey: request.headers['idempotency-key'] ?? null,
          query: request.query,
          body: request.body,
        }),
    );
  };
