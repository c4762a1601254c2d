// GET /jobs/{id}/results: a job's page results as JSON, JSON Lines or YAML, optionally merged.
import { z } from 'zod';
import { PAGE_STATUSES } from '../reducers/results.js';
import { PageScreenshotSchema } from './actions.js';
import { ErrorCategorySchema, ProvenanceSchema } from './common.js';

export const RESULT_FORMATS = ['json', 'jsonl', 'yaml'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/**
 * The media types each format answers to in Accept. The first of each is what `format=` answers with;
 * an Accept match answers with the type matched. Order matters: `*\/*` picks the first, JSON.
 */
export const RESULT_MEDIA_TYPES = {
  json: ['application/json'],
  jsonl: ['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines'],
  yaml: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'],
} as const satisfies Record<ResultFormat, readonly string[]>;

export const PageStatusSchema = z.enum(PAGE_STATUSES).meta({
  id: 'PageStatus',
  description:
    'Status of one page of a job: pending, crawling, completed, failed, or skipped (robots.txt, duplicate, ' +
    'not HTML, out of limits). Results only hold finished pages: completed, failed or skipped.',
});

export const JobResultSchema = z
  .object({
    id: z.string().meta({
      description:
        "Page result id: the page_id of the page's routes (GET /jobs/{id}/pages/{page_id}/screenshot)",
    }),
    url: z.string().meta({ description: 'The page URL as requested or discovered' }),
    status: PageStatusSchema,
    data: z.unknown().meta({ description: 'The extracted data; null unless status is completed' }),
    error_category: ErrorCategorySchema.nullable().meta({
      description: 'Why the page failed or was skipped',
    }),
    error_message: z.string().nullable(),
    from_cache: z
      .literal(true)
      .optional()
      .meta({
        description:
          'Present (true) only on a page that came from the page store instead of the network (max_age, POST ' +
          '/jobs/{id}/reextract, retry with refetch false), with fetched_at',
      }),
    fetched_at: z.string().optional().meta({
      description: 'With from_cache only: when the stored page was fetched',
      example: '2026-11-25T10:00:00.000Z',
    }),
    screenshots: z.array(PageScreenshotSchema).optional().meta({
      description:
        'Present only on a page with screenshots (formats or screenshot actions): their sizes and URLs',
    }),
    provenance: ProvenanceSchema.nullable().optional().meta({
      description:
        'With include_provenance=true only: where each value came from (null on pages that did not complete)',
    }),
  })
  .meta({
    id: 'JobResult',
    description:
      "One page's result, the same shape as the stream's result events. Per-page metadata (timings, tokens, " +
      'model, depth, parent) is in the crawl map and the debug capture, not here.',
  });
export type JobResult = z.infer<typeof JobResultSchema>;

export const JobResultListSchema = z
  .array(JobResultSchema)
  .meta({ id: 'JobResultList', description: 'The page results of a job, in the order the pages finished' });

export const MergedResultsSchema = z.array(z.unknown()).meta({
  id: 'MergedResults',
  description:
    "merge=true: the completed pages' data merged into one de-duplicated array of records (see the route).",
});

export const ResultsQuerySchema = z.object({
  format: z.enum(RESULT_FORMATS).optional().meta({
    description:
      'json, jsonl (JSON Lines) or yaml. Overrides the Accept header; without it, Accept chooses (default json).',
  }),
  merge: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .meta({ description: "Merge the pages' data into one de-duplicated array of records." }),
  include_provenance: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .meta({
      description:
        "Add each page's `provenance`: per top-level field, its source (structured_data, learned_extractor, " +
        'model), the JSON-LD path or CSS selector read, and for model values whether they occur in the page. ' +
        'Ignored with merge=true.',
    }),
});

const ref = (schema: z.ZodType) => ({ $ref: `#/components/schemas/${z.globalRegistry.get(schema)?.id}` });
// anyOf, not oneOf: a list of page results is also a list of merged records (MergedResults is any list).
const listOrMerged = {
  description: 'Page results (JobResultList), or merged records with merge=true (MergedResults)',
  anyOf: [ref(JobResultListSchema), ref(MergedResultsSchema)],
};

/**
 * The 200 body. JSON is serialized (and checked) through this schema; JSON Lines and YAML are sent as
 * text. The OpenAPI document shows one entry per media type (`content`), as Fastify's schema can't.
 */
export const ResultsResponseSchema = z.union([JobResultListSchema, MergedResultsSchema, z.string()]).meta({
  description: 'The results, in the negotiated format',
  content: {
    'application/json': { schema: listOrMerged },
    'application/x-ndjson': {
      schema: {
        description: 'JSON Lines: each line is one JobResult (merge=true: one merged record)',
        anyOf: [ref(JobResultSchema), { description: 'A merged record (merge=true)' }],
      },
    },
    'application/yaml': { schema: { ...listOrMerged, description: 'A YAML sequence of the same items' } },
  },
});
