// POST /api/v1/analyze: runs an analyze job and waits for it (200 with the result).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AnalyzeRequestSchema, AnalyzeResponseSchema } from '../../shared/schemas/analyze.js';
import { IdempotencyHeadersSchema } from '../../shared/schemas/common.js';
import { AcceptedJobSchema } from '../../shared/schemas/extract.js';
import { waitedJobErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
import { runWaitedJob } from '../job-service.js';
import { analyzeResponse } from '../views.js';
import { tenantWebhooks } from '../webhook-destinations.js';

const DESCRIPTION = `Analyzes a page for scraping: what kind of page it is, what it is made of (repeated items,
pagination, tables, forms, headings, images, prices, dates, navigation — counted on the page, each with a CSS
selector), which same-site links to follow (URL regexes with real sample links), which fetch mode the site needs,
a structured schema that /extract and /crawl accept as is, and that schema applied to the page (sample_data).
Structural facts come from parsing the page; the model chain names things, confirms the page type, summarises the
site and suggests the schema's fields.

fetch_mode auto fetches the page statically and renders it in the browser, and recommends dynamic only when the
rendered page shows materially more content; static or dynamic fetch in that mode only and recommend it. depth 1
also fetches a few linked pages of the top follow patterns and says in each pattern's description whether it
leads to detail or listing pages.

Runs as an analyze job (see /jobs/{id}: type analyze, usage and cost; its results hold the analysis as one item)
and waits for it: 200 with the analysis; a failed job answers as soon as its failure is final, with a problem
document carrying job_id and error_category (statuses as for /extract: a model provider's rate limit is 429
provider-rate-limited with error_category rate_limit and the provider's Retry-After); each of its model steps takes about
1.5 × LLM_TIMEOUT_MS, so a hung model fails it with timeout (504); 202 with the job link when it takes longer
than EXTRACT_WAIT_SECONDS. Send an Idempotency-Key header to make retries safe: after a 503 (Retry-After) a retry
with the same key runs the job.`;

export const analyzeRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/analyze',
      {
        schema: {
          summary: 'Analyze a page: page type, elements, follow patterns, fetch mode and a suggested schema',
          description: DESCRIPTION,
          tags: ['analyze'],
          headers: IdempotencyHeadersSchema,
          body: AnalyzeRequestSchema,
          response: { 200: AnalyzeResponseSchema, 202: AcceptedJobSchema, ...waitedJobErrors },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const { beforeStart, webhooks } = await tenantWebhooks(deps, request.tenant._id);
        const spec = {
          kind: 'analyze' as const,
          url: body.url,
          depth: body.depth,
          fetchMode: body.fetch_mode,
          captureDebug: body.capture_debug,
          ...webhooks,
        };
        return runWaitedJob(deps, request, reply, { spec, beforeStart }, analyzeResponse);
      },
    );
  };
