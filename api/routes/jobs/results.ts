// GET /jobs/{id}/results: a job's page results as JSON, JSON Lines or YAML (by `format` or Accept), optionally
// merged into one de-duplicated array of records.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as yaml from 'js-yaml';
import Negotiator from 'negotiator';
import { mergeIntoObject, mergeResults } from '../../../shared/merge-results.js';
import type { JobView } from '../../../shared/reducers/job.js';
import type { ResultView } from '../../../shared/reducers/results.js';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { ProblemSchema, standardErrors } from '../../../shared/schemas/problem.js';
import {
  JobResultSchema,
  RESULT_MEDIA_TYPES,
  type ResultFormat,
  ResultsQuerySchema,
  ResultsResponseSchema,
} from '../../../shared/schemas/results.js';
import type { ApiDeps } from '../../deps.js';
import { notFound, ProblemError } from '../../problem.js';
import { streamItems, streamObject } from '../../streamed-body.js';
import { jobResult } from '../../views.js';

const DESCRIPTION = `The page results of a job of any type (extract, crawl, analyze), in the order the pages finished:
JobResult items \`{id, url, status, data, error_category, error_message}\`. On failed and skipped pages \`data\` is
null and \`error_category\`/\`error_message\` say why; on completed pages the error fields are null. A job with no
finished page yet gives an empty array.

**Format.** \`format=json|jsonl|yaml\` wins. Without it the Accept header chooses, honouring q-values, among
\`application/json\` (the default, also for \`*/*\` or no Accept), \`application/x-ndjson\` (also
\`application/jsonl\`, \`application/x-jsonlines\`) and \`application/yaml\` (also \`application/x-yaml\`,
\`text/yaml\`, \`text/x-yaml\`); the Content-Type is the type chosen. An Accept that allows none of them is a 406.
- json: a JSON array;
- jsonl: JSON Lines, one item per line, each line ending in a newline (no items: an empty body);
- yaml: a YAML sequence of the same items.

**merge=true.** Instead of the page results, one array merged from the \`data\` of the completed pages, in page
order (failed and skipped pages contribute nothing):
1. each page's data gives items: an array gives its items; an object holding arrays of records
   (\`{products: [...]}\`) gives the items of those arrays, concatenated (its other fields are dropped); an object
   whose fields are all arrays gives all their items; anything else (an object carrying a \`url\`, any other
   object, a string, a number) is one item;
2. objects with a non-empty string \`url\` appear once per URL: the richest one (most fields holding a value;
   null, "", [] and {} hold none; the earlier one on a tie), at the place where the URL first appeared;
3. other items appear once per distinct value (deep equality, key order ignored).

The merged array is sent in the chosen format like the page results: a JSON array, one merged item per JSON
line, or a YAML sequence.

**Size.** The page results are streamed as they are read (a batch of at most 160 pages at a time), so a crawl
of any size is answered without the service holding it whole; a body cut short means the read failed midway.
merge=true holds the completed pages' data, as merging needs all of it.

**API version refyne** (JSON only): the product's shape, \`{job_id, status, page_count, results, merged}\`:
\`results\` lists the completed pages as \`{id, url, data}\` (null with merge=true); \`merged\` (null without
merge=true) is one object merged field by field from the completed pages' object data: a field holding lists
gets all their items, merged and de-duplicated as above; any other field keeps the first value that holds one;
data that is not an object is merged under \`items\`.`;

const MEDIA_TYPES: readonly string[] = Object.values(RESULT_MEDIA_TYPES).flat();
const FORMAT_OF_MEDIA_TYPE = new Map<string, ResultFormat>(
  Object.entries(RESULT_MEDIA_TYPES).flatMap(([format, types]) =>
    types.map((type): [string, ResultFormat] => [type, format as ResultFormat]),
  ),
);

/** The format and media type to answer with: `format` wins, else Accept (absent or blank: JSON); null if Accept allows none. */
export function chooseFormat(
  format: ResultFormat | undefined,
  accept: string | undefined,
): { format: ResultFormat; mediaType: string } | null {
  if (format) return { format, mediaType: RESULT_MEDIA_TYPES[format][0] };
  const headers = { accept: accept?.trim() ? accept : undefined };
  const mediaType = new Negotiator({ headers }).mediaType(MEDIA_TYPES);
  const chosen = mediaType === undefined ? undefined : FORMAT_OF_MEDIA_TYPE.get(mediaType);
  return mediaType && chosen ? { format: chosen, mediaType } : null;
}

function renderText(format: Exclude<ResultFormat, 'json'>, items: readonly unknown[]): string {
  if (format === 'jsonl') return items.map((item) => `${JSON.stringify(item)}\n`).join('');
  return yaml.dump(items, { noRefs: true, lineWidth: -1 });
}

/** The completed pages' data: only that is kept while the results are read. */
async function completedData(deps: ApiDeps, job: JobView): Promise<unknown[]> {
  const data: unknown[] = [];
  for await (const batch of deps.jobs.resultBatches(job))
    for (const page of batch) if (page.status === 'completed') data.push(page.data);
  return data;
}

async function* completedPages(batches: AsyncIterable<readonly ResultView[]>) {
  for await (const batch of batches) yield batch.filter((page) => page.status === 'completed');
}

/** API version refyne: `{job_id, status, page_count, results, merged}`, the results streamed like v1's. */
async function refyneResults(deps: ApiDeps, job: JobView, merge: boolean) {
  const head = { job_id: job.id, status: job.status, page_count: job.page_count };
  if (merge) return { ...head, results: null, merged: mergeIntoObject(await completedData(deps, job)) };
  const entry = (page: ResultView) => ({ id: page.id, url: page.url, data: page.data ?? null });
  return streamObject(head, 'results', completedPages(deps.jobs.resultBatches(job)), entry, () => ({
    merged: null,
  }));
}

export const resultRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/jobs/:id/results',
      {
        schema: {
          summary: "Read a job's page results as JSON, JSON Lines or YAML",
          description: DESCRIPTION,
          tags: ['jobs'],
          params: IdParamsSchema,
          querystring: ResultsQuerySchema,
          response: { 200: ResultsResponseSchema, 406: ProblemSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        const choice = chooseFormat(request.query.format, request.headers.accept);
        if (!choice) {
          throw new ProblemError({
            slug: 'not-acceptable',
            detail: `Accept "${request.headers.accept}" allows none of ${MEDIA_TYPES.join(', ')}; or use format=json|jsonl|yaml`,
          });
        }
        reply.header('vary', 'Accept').type(`${choice.mediaType}; charset=utf-8`);
        if (request.apiVersion === 'refyne' && choice.format === 'json')
          return reply.send((await refyneResults(deps, job, request.query.merge)) as never);
        if (request.query.merge) {
          const items = mergeResults(await completedData(deps, job));
          // JSON goes through the response schema; the text formats are sent as they are.
          return choice.format === 'json' ? items : renderText(choice.format, items);
        }
        const provenance = request.query.include_provenance;
        // Each JSON item is checked against JobResult as the response schema would check the whole list.
        const toJson =
          choice.format === 'json'
            ? (page: ResultView) => JobResultSchema.parse(jobResult(page, { provenance }))
            : (page: ResultView) => jobResult(page, { provenance });
        const body = streamItems(deps.jobs.resultBatches(job), choice.format, toJson);
        // Fastify pipes a stream as it is (no serializer); the response schema only documents it.
        return reply.send(body as never);
      },
    );
  };
