// POST /api/v1/map: runs a map job (a site's URLs from its sitemaps and links, no extraction) and waits for it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdempotencyHeadersSchema } from '../../shared/schemas/common.js';
import { AcceptedJobSchema } from '../../shared/schemas/extract.js';
import {
  MAP_MAX_URL_CHARS,
  MAP_TIME_BUDGET_MS,
  MAX_SITEMAP_DEPTH,
  MAX_SITEMAP_ENTRIES,
  MAX_SITEMAPS,
  MAX_WALK_PAGES,
  MapRequestSchema,
  MapResponseSchema,
  SITEMAP_MAX_BYTES,
} from '../../shared/schemas/map.js';
import { waitedJobErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
import { runWaitedJob } from '../job-service.js';
import { mapResponse } from '../views.js';
import { tenantWebhooks } from '../webhook-destinations.js';

const MIB = 1024 * 1024;

const DESCRIPTION = `Lists a site's URLs quickly, without fetching every page or extracting anything: first the
sitemaps (those robots.txt names in Sitemap: lines, else /sitemap.xml; sitemap indexes followed up to
${MAX_SITEMAP_DEPTH} levels, ${MAX_SITEMAPS} files in all; gzip sitemaps read, .xml.gz and gzip content-encoding
alike; the plain-text form too), then the links of the start page and of up to ${MAX_WALK_PAGES} same-site pages it
links to (static fetch, no browser). URLs are normalised and de-duplicated as crawls do, kept on the start host
(with or without "www."; subdomains with include_subdomains), filtered by search, and listed up to limit (and
${MAP_MAX_URL_CHARS / MIB} MiB of URL text): truncated says when more were found.

Sitemaps are read defensively: each at most ${SITEMAP_MAX_BYTES / MIB} MiB after decompression (a larger one, or a
gzip that inflates past it, is skipped as content_too_large), at most ${MAX_SITEMAP_ENTRIES} entries each. A source
that fails (an error status, a bound, robots.txt) is skipped and named in warnings; the map goes on. After
${MAP_TIME_BUDGET_MS / 1000} s the map answers with what it has found (a timeout warning). The job fails only when
nothing was found and the start page itself failed (e.g. ssrf_blocked, fetch_error, robots_disallowed).

Runs as a map job (GET /jobs/{id}: type map; its results hold the map as one item) and waits for it: 200 with the
URLs; 202 with the job link when it takes longer than EXTRACT_WAIT_SECONDS. Send an Idempotency-Key header to
make retries safe.`;

export const mapRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/map',
      {
        schema: {
          summary: "List a site's URLs from its sitemaps and links, without extraction",
          description: DESCRIPTION,
          tags: ['map'],
          headers: IdempotencyHeadersSchema,
          body: MapRequestSchema,
          response: { 200: MapResponseSchema, 202: AcceptedJobSchema, ...waitedJobErrors },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const { beforeStart, webhooks } = await tenantWebhooks(deps, request.tenant._id);
        const spec = {
          kind: 'map' as const,
          url: body.url,
          limit: body.limit,
          includeSubdomains: body.include_subdomains,
          search: body.search ?? null,
          useSitemap: body.use_sitemap,
          ignoreQuery: body.ignore_query,
          respectRobots: body.respect_robots,
          ...webhooks,
        };
        return runWaitedJob(deps, request, reply, { spec, beforeStart }, mapResponse);
      },
    );
  };
