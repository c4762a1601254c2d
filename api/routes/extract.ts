// POST /api/v1/extract: runs an extract job and waits for it (decisions.md: 200 with the result).

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { budgetInput } from '../../shared/budget.js';
import { defaultChainFor } from '../../shared/cleaners.js';
import { CategorizedError } from '../../shared/errors.js';
import { type NormalizedSchema, normalizeSchema, validateSchemaYaml } from '../../shared/schema-input.js';
import { actionsInput } from '../../shared/schemas/actions.js';
import { IdempotencyHeadersSchema } from '../../shared/schemas/common.js';
import {
  AcceptedJobSchema,
  type ExtractRequest,
  ExtractRequestSchema,
  ExtractResponseSchema,
  maxAgeInput,
} from '../../shared/schemas/extract.js';
import type { LlmConfig } from '../../shared/schemas/llm.js';
import { waitedJobErrors } from '../../shared/schemas/problem.js';
import { WORKFLOW_TYPES } from '../../shared/temporal-names.js';
import type { ExtractWorkflowInput } from '../../workflows/extract.js';
import type { ApiDeps } from '../deps.js';
import { answerPageJob } from '../job-answer.js';
import { startJob } from '../job-runner.js';
import { ProblemError } from '../problem.js';
import { extractResponse } from '../views.js';
import { resolveWebhooks, type WebhookSources, withWebhooks } from '../webhook-destinations.js';
import { checkLlmConfig, jobLlmConfig } from './llm.js';
import { refuseSecrets } from './site-session.js';

/** Parses a schema field; an unusable schema is a 422 whose `errors[0].location` points inside it. */
export function parseSchemaField<T>(
  schema: T,
  location: string,
  parse: (input: T) => NormalizedSchema = normalizeSchema,
): NormalizedSchema {
  try {
    return parse(schema);
  } catch (err) {
    if (!(err instanceof CategorizedError)) throw err;
    const details = err.details ?? {};
    const path = typeof details.location === 'string' ? details.location : '';
    throw new ProblemError({
      slug: 'validation-error',
      detail: `The schema cannot be used: ${err.message}`,
      errors: [
        {
          location: path ? `${location}.${path}` : location,
          message: typeof details.reason === 'string' ? details.reason : err.message,
          value: 'location' in details ? details.value : schema,
        },
      ],
    });
  }
}

/** A stored schema the tenant may use (its own or a public one); otherwise a 422 at `location`. */
export async function usableSchema(deps: ApiDeps, tenantId: string, id: string, location: string) {
  const doc = await deps.schemaLibrary.readable(tenantId, id);
  if (doc) return doc;
  const message = `no schema ${id}`;
  throw new ProblemError({
    slug: 'validation-error',
    detail: message,
    errors: [{ location, message, value: id }],
  });
}

/**
 * What extract and crawl requests share before their job starts: the parsed schema, inline or stored
 * (schema_id; 422 when unusable), the model settings (a caller's base_url checked; a one-job key sealed
 * with the job before the workflow starts, so only a flag travels) and the webhook destinations.
 */
export async function prepareJobRequest(
  deps: ApiDeps,
  tenantId: string,
  body: WebhookSources & { schema?: unknown; schema_id?: string; llm_config?: LlmConfig },
) {
  const stored = body.schema_id ? await usableSchema(deps, tenantId, body.schema_id, 'body.schema_id') : null;
  const schema = stored
    ? parseSchemaField(stored.schema_yaml, 'body.schema_id', validateSchemaYaml)
    : parseSchemaField(body.schema, 'body.schema');
  const llm = body.llm_config;
  if (llm) await checkLlmConfig(deps, tenantId, llm);
  const hooks = await resolveWebhooks(deps, tenantId, body);
  // startJob runs this only for a job it creates, so an idempotent replay neither reseals nor recounts.
  const beforeStart = async (jobId: string) => {
    if (llm?.api_key) await deps.llm.putJobKey(jobId, llm.api_key);
    if (stored) await deps.schemaLibrary.countUse(stored._id);
  };
  return {
    schema,
    llm: jobLlmConfig(llm),
    webhooks: hooks ? { webhooks: hooks.plan } : {},
    beforeStart: withWebhooks(beforeStart, hooks),
  };
}

/** An extract request's workflow input for a job (monitors store it, without the ids, to create each run's job). */
export function extractInput(
  body: ExtractRequest,
  prepared: Awaited<ReturnType<typeof prepareJobRequest>>,
  tenantId: string,
) {
  return (jobId: string): ExtractWorkflowInput => ({
    jobId,
    tenantId,
    url: body.url,
    ...actionsInput(body),
    cleanerChain: body.cleaner_chain ?? defaultChainFor(prepared.schema),
    schema: prepared.schema,
    captureDebug: body.capture_debug,
    structuredData: body.structured_data,
    llm: prepared.llm,
    firstSeq: 1,
    ...prepared.webhooks,
    ...budgetInput(body),
    ...maxAgeInput(body),
  });
}

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
      },
      async (request, reply) => {
        const body = request.body;
        refuseSecrets(body.actions);
        const prepared = await prepareJobRequest(deps, request.tenant._id, body);
        const { job } = await startJob(
          deps,
          {
            tenantId: request.tenant._id,
            type: 'extract',
            url: body.url,
            captureDebug: body.capture_debug,
            idempotencyKey: request.headers['idempotency-key'] ?? null,
            workflowType: WORKFLOW_TYPES.extract,
            beforeStart: prepared.beforeStart,
            input: extractInput(body, prepared, request.tenant._id),
          },
          reply,
        );
        return answerPageJob(deps, job, reply, extractResponse);
      },
    );
  };
