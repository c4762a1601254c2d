// POST /api/v1/extract: runs an extract job and waits for it (200 with the result).

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdempotencyHeadersSchema } from '../../shared/schemas/common.js';
import {
  AcceptedJobSchema,
  ExtractRequestSchema,
  ExtractResponseSchema,
} from '../../shared/schemas/extract.js';
import { waitedJobErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';
import { extractSpec, prepareJobRequest, refuseSecrets } from '../job-requests.js';
import { runWaitedJob } from '../job-service.js';
import { extractResponse } from '../views.js';
import { readSavedWebhooksAhead, savedWebhooksFor } from '../webhook-destinations.js';

export const extractRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/extract',
      {
        schema: {
          summary: 'Extract structured data from one page',
          description:
            'Fetches the URL, cleans it with the cleaner chain and asks the model chain for data matching the ' +
            'schema. Runs as a job (see /jobs/{id}) and waits for it: 200 with the result; a failed job answers ' +
            'as soon as its failure is final, with a problem document of type job-failed (validation-error for ' +
            'unusable input or content, 422) carrying job_id and error_category, status by category: 409 ' +
            'no usable model in your settings (no_models) or cancelled, 401 ' +
            "invalid provider key, 429 the model provider's rate limit (type provider-rate-limited, " +
            'error_category rate_limit, with the ' +
            "provider's Retry-After when it gave one, at most 600 s) or quota_exceeded (a budget — max_cost_usd, " +
            "max_tokens, the tenant's monthly budget — refused the model call, or the provider's quota), 502 " +
            "upstream failure, 504 timeout. These are the job's failures: this service's own request-rate limit " +
            'is the rate-limited type. The model step (every model of the chain and every retry) takes about ' +
            `1.5 × LLM_TIMEOUT_MS (${(1.5 * deps.config.LLM_TIMEOUT_MS) / 1000} s here): a hung model fails the ` +
            'job with timeout (504) within the wait when EXTRACT_WAIT_SECONDS is longer than that plus the fetch. ' +
            `A job still running after EXTRACT_WAIT_SECONDS (default ${deps.config.EXTRACT_WAIT_SECONDS}) is ` +
            'answered 202 with the job link and goes on. Send an Idempotency-Key header to make retries safe: a ' +
            '503 (the workflow service out of reach; Retry-After) keeps the job, and a retry with the same key ' +
            'runs it (it also starts by itself once the service is back).',
          tags: ['extract'],
          headers: IdempotencyHeadersSchema,
          body: ExtractRequestSchema,
          response: { 200: ExtractResponseSchema, 202: AcceptedJobSchema, ...waitedJobErrors },
        },
        onRequest: readSavedWebhooksAhead(deps),
      },
      async (request, reply) => {
        const body = request.body;
        refuseSecrets(body.actions);
        const tenantId = request.tenant._id;
        const prepared = await prepareJobRequest(deps, tenantId, body, savedWebhooksFor(request, tenantId));
        return runWaitedJob(
          deps,
          request,
          reply,
          { spec: extractSpec(body, prepared), beforeStart: prepared.beforeStart },
          extractResponse,
        );
      },
    );
  };
