// The MCP server's tools: each one request (two for job_results' page count) to the HTTP API through
// `call`, with inputs described by the API's own request schemas. Long work never blocks: crawl answers with
// the job at once, and extract/analyze answer with the job to poll when they outlast the API's wait.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AnalyzeRequestSchema } from '../../shared/schemas/analyze.js';
import { IdParamsSchema } from '../../shared/schemas/common.js';
import { CrawlRequestSchema } from '../../shared/schemas/crawl.js';
import { ExtractRequestSchema } from '../../shared/schemas/extract.js';
import { type Job, JobListQuerySchema } from '../../shared/schemas/job.js';
import { MapRequestSchema, type MapResponse } from '../../shared/schemas/map.js';
import { type ApiCall, type ApiResponse, ServiceUnreachableError } from './api-call.js';
import {
  boundedPage,
  jsonResult,
  MAX_RESULTS_CHARS,
  MAX_RESULTS_PER_CALL,
  MAX_TOOL_OUTPUT_CHARS,
  problemResult,
  toolError,
} from './output.js';

/**
 * A request schema's fields as a plain object schema: the SDK lists a tool's input as JSON Schema and needs
 * an object at the top (the API's schemas carry an OpenAPI component id, which would make it a $ref). The
 * API still checks the request with the whole schema (e.g. schema or schema_id, not both).
 */
const fieldsOf = <S extends z.ZodObject>(schema: S) => z.object(schema.shape).strict();

const JobIdSchema = IdParamsSchema.shape.id.meta({
  description: 'The job id (job_id of extract, crawl, list_jobs)',
});

const JobResultsInputSchema = z
  .object({
    job_id: JobIdSchema,
    offset: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(0)
      .meta({ description: 'Page results to skip (next_offset of the last call).' }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS_PER_CALL)
      .default(10)
      .meta({
        description: `Page results at most (1..${MAX_RESULTS_PER_CALL}); fewer when they pass ${MAX_RESULTS_CHARS} characters.`,
      }),
    merge: z.boolean().default(false).meta({
      description:
        "Page through one de-duplicated array of records merged from the completed pages' data instead.",
    }),
  })
  .strict();

const id = (jobId: string) => `/jobs/${encodeURIComponent(jobId)}`;

/** What an agent needs to follow a job: progress (pages done, queued, failed), tokens, cost and outcome. */
export function jobStatus(job: Job) {
  return {
    job_id: job.id,
    type: job.type,
    url: job.url,
    status: job.status,
    pages_done: job.page_count,
    pages_failed: job.failed_count,
    pages_queued: job.urls_queued,
    tokens: { input: job.token_usage_input, output: job.token_usage_output },
    cost_usd: job.cost_usd,
    budget_exhausted: job.budget_exhausted,
    queue_position: job.queue_position,
    created_at: job.created_at,
    completed_at: job.completed_at,
    duration_ms: job.duration_ms,
    error_category: job.error_category,
    error_message: job.error_message,
  };
}

const NEXT_STEP = 'Poll job_status until status is completed, failed or cancelled; then read job_results.';

/** Runs one API request; a failed answer or an unreachable service is a tool error, anything else `ok`. */
async function request(
  call: ApiCall,
  req: Parameters<ApiCall>[0],
  ok: (res: ApiResponse) => CallToolResult,
): Promise<CallToolResult> {
  let res: ApiResponse;
  try {
    res = await call(req);
  } catch (err) {
    if (err instanceof ServiceUnreachableError) return toolError(err.message);
    return toolError('The request could not be made (internal error).');
  }
  if (res.status >= 400) return problemResult(res);
  return ok(res);
}

/** A waited job (extract, analyze) that goes on past the API's wait: the job to poll instead of a result. */
function acceptedOr(res: ApiResponse): CallToolResult {
  if (res.status !== 202) return jsonResult(res.body);
  const { job_id, status } = res.body as { job_id: string; status: string };
  return jsonResult({ job_id, status, still_running: true, next: NEXT_STEP });
}

/** Room kept in a map's answer for everything but its URLs. */
const MAP_ANSWER_RESERVE = 10_000;

/** A map for an agent: the URLs alone, as many as fit in one answer (GET /jobs/{id}/results has them all). */
function mapResult(res: ApiResponse): CallToolResult {
  if (res.status !== 200) return acceptedOr(res);
  const body = res.body as MapResponse;
  const urls: string[] = [];
  let chars = 0;
  for (const { url } of body.urls) {
    chars += url.length + 3;
    if (chars > MAX_TOOL_OUTPUT_CHARS - MAP_ANSWER_RESERVE) break;
    urls.push(url);
  }
  return jsonResult({
    job_id: body.job_id,
    total: body.total,
    truncated: body.truncated,
    shown: urls.length,
    urls,
    warnings: body.warnings.slice(0, 5),
  });
}

function registerJobTools(server: McpServer, call: ApiCall) {
  server.registerTool(
    'job_status',
    {
      title: 'Job progress',
      description: `A job's status and progress: pages done, queued and failed, tokens, cost, and why it failed. ${NEXT_STEP}`,
      inputSchema: { job_id: JobIdSchema },
      annotations: { readOnlyHint: true },
    },
    ({ job_id }) =>
      request(call, { method: 'GET', path: id(job_id) }, (res) => jsonResult(jobStatus(res.body as Job))),
  );

  server.registerTool(
    'job_results',
    {
      title: 'Job results (paged)',
      description:
        "A job's page results ({id, url, status, data, error_category, error_message}) in the order the pages " +
        `finished, ${MAX_RESULTS_PER_CALL} at most per call and at most ${MAX_RESULTS_CHARS} characters of JSON ` +
        '(a page whose data alone is larger has it replaced by a note). Call again with next_offset until it is ' +
        'null. merge=true pages through the merged records instead.',
      inputSchema: JobResultsInputSchema,
      annotations: { readOnlyHint: true },
    },
    ({ job_id, offset, limit, merge }) =>
      request(
        call,
        { method: 'GET', path: `${id(job_id)}/results`, query: { format: 'json', merge } },
        (res) =>
          jsonResult({
            job_id,
            ...boundedPage(
              (res.body as { data?: unknown }[]) ?? [],
              offset,
              limit,
              `over ${MAX_RESULTS_CHARS} characters; read it at GET /api/v1/jobs/${job_id}/results`,
            ),
          }),
      ),
  );

  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description:
        "The caller's jobs, newest first, with their status and progress; type and status keep only the jobs " +
        'of that type and in that status.',
      inputSchema: JobListQuerySchema.shape,
      annotations: { readOnlyHint: true },
    },
    ({ limit, offset, type, status }) => {
      const query = { limit, offset, ...(type ? { type } : {}), ...(status ? { status } : {}) };
      return request(call, { method: 'GET', path: '/jobs', query }, (res) =>
        jsonResult({ jobs: (res.body as { jobs: Job[] }).jobs.map(jobStatus), limit, offset }),
      );
    },
  );

  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a job',
      description:
        'Cancels a pending or running job: pages in flight end cleanly and the job ends cancelled. A job that ' +
        'already ended is an error (409).',
      inputSchema: { job_id: JobIdSchema },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ job_id }) =>
      request(call, { method: 'POST', path: `${id(job_id)}/cancel` }, (res) =>
        jsonResult(jobStatus(res.body as Job)),
      ),
  );
}

function registerStartTools(server: McpServer, call: ApiCall) {
  server.registerTool(
    'extract',
    {
      title: 'Extract from one page',
      description:
        'Fetches one URL and returns the data matching the schema (a fields map such as {"title": "string", ' +
        '"price": "number"}, a structured schema, or a prompt), with usage and cost. Waits for the job; when it ' +
        `takes longer than the service's wait, answers with the job_id to poll instead. Answers over ` +
        `${MAX_TOOL_OUTPUT_CHARS} characters are cut: read big results with job_results.`,
      inputSchema: fieldsOf(ExtractRequestSchema),
      annotations: { openWorldHint: true },
    },
    (args) => request(call, { method: 'POST', path: '/extract', body: args }, acceptedOr),
  );

  server.registerTool(
    'crawl',
    {
      title: 'Start a crawl',
      description:
        'Starts a crawl from a seed URL (follow links by follow_selector / follow_pattern, paginate with ' +
        'next_selector, up to options.max_pages) extracting the schema from every page, and answers at once ' +
        `with the job_id and status; it never waits for the crawl. ${NEXT_STEP}`,
      inputSchema: fieldsOf(CrawlRequestSchema),
      annotations: { openWorldHint: true },
    },
    (args) =>
      request(call, { method: 'POST', path: '/crawl', body: args }, (res) => {
        const body = res.body as { job_id: string; status: string; queue_position: number };
        return jsonResult({
          job_id: body.job_id,
          status: body.status,
          queue_position: body.queue_position,
          next: NEXT_STEP,
        });
      }),
  );

  server.registerTool(
    'analyze',
    {
      title: 'Analyze a page for scraping',
      description:
        'What kind of page it is, its repeated items, pagination and links to follow (as crawl follow_pattern ' +
        'regexes), the fetch mode it needs, and a suggested schema that extract and crawl accept as is, applied ' +
        'to the page. Waits for the job like extract.',
      inputSchema: fieldsOf(AnalyzeRequestSchema),
      annotations: { openWorldHint: true },
    },
    (args) => request(call, { method: 'POST', path: '/analyze', body: args }, acceptedOr),
  );

  server.registerTool(
    'map',
    {
      title: "List a site's URLs",
      description:
        "The site's URLs from its sitemaps and a shallow walk of its links, without extracting anything: to " +
        'choose pages to extract or a crawl to start. search keeps URLs holding every given word. Answers the ' +
        'URLs that fit in one answer (shown of total); the job keeps them all.',
      inputSchema: fieldsOf(MapRequestSchema),
      annotations: { openWorldHint: true },
    },
    (args) => request(call, { method: 'POST', path: '/map', body: args }, mapResult),
  );
}

/** A server exposing the tools over whatever transport it is connected to; one per /mcp request when stateless. */
export function createMcpServer(call: ApiCall): McpServer {
  const server = new McpServer(
    // The version of the HTTP API the tools speak (API_VERSION in api/app.ts, not imported: stdio needs no app).
    { name: 'extract-service', version: '1.0.0' },
    {
      capabilities: { tools: {} },
      // Bounds the work of validating one call's arguments (the API bounds the body again).
      maxToolInputElements: 10_000,
      instructions:
        'Web data extraction: extract (one page), crawl (a site, as a background job), analyze (suggests a ' +
        `schema and crawl patterns), map (lists a site's URLs). ${NEXT_STEP}`,
    },
  );
  registerStartTools(server, call);
  registerJobTools(server, call);
  return server;
}
