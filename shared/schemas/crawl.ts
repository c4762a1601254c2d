import { z } from 'zod';
import { isValidSelector } from '../cleaners.js';
import { MAX_LINK_CHARS_PER_PAGE, MAX_LINKS_PER_PAGE, MAX_URL_LENGTH } from '../crawl/links.js';
import { MAX_PATTERN_LENGTH, MAX_PATTERN_PROGRAM_SIZE, urlPatternProblem } from '../crawl/url-pattern.js';
import { DATA_SOURCES } from '../structured-data.js';
import { checkActionsMode, checkFormats } from './actions.js';
import { FetchModeSchema } from './common.js';
import { BudgetFields, checkSchemaSource, ExtractRequestSchema, ONE_SCHEMA_SOURCE } from './extract.js';

export const MAX_DELAY_MS = 60_000;
/** max_pages when a crawl request gives none (and its tier allows as many). */
export const DEFAULT_MAX_PAGES = 50;

/**
 * A crawl delay: milliseconds, seconds (up to 3 decimals) or minutes, at most 60 s — exactly what the pattern
 * matches, so the OpenAPI document says precisely what is accepted.
 */
const DELAY_PATTERN =
  /^(?:(?:[0-9]{1,4}|[1-5][0-9]{4}|60000)ms|(?:[0-9]|[1-5][0-9])(?:\.[0-9]{1,3})?s|60(?:\.0{1,3})?s|0(?:\.[0-9]{1,3})?m|1(?:\.0{1,3})?m)$/;

/** "1s", "500ms", "1.5s", "2m" → milliseconds. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*$/i.exec(text);
  if (!match) return null;
  const unit = { ms: 1, s: 1000, m: 60_000 }[(match[2] as string).toLowerCase() as 'ms' | 's' | 'm'];
  return Math.round(Number(match[1]) * unit);
}

/** A URL pattern as the crawl runs it: RE2 syntax, linear-time matching, bounded size (shared/crawl/url-pattern.ts). */
export const RegexSchema = z
  .string()
  .min(1)
  .max(MAX_PATTERN_LENGTH)
  .superRefine((v, ctx) => {
    const problem = v.length <= MAX_PATTERN_LENGTH ? urlPatternProblem(v) : null;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const FOLLOW_PATTERN_RULES =
  `RE2 syntax (https://github.com/google/re2/wiki/Syntax), matched in linear time: no backreferences or ` +
  `lookaround (422 if given). At most ${MAX_PATTERN_LENGTH} characters and ${MAX_PATTERN_PROGRAM_SIZE} ` +
  'compiled RE2 instructions. It matches anywhere in the URL, as RegExp.test does; anchor with ^ and $ for ' +
  'the whole URL.';

export const SelectorSchema = z
  .string()
  .min(1)
  .max(1000)
  .refine((v) => isValidSelector(v), { message: 'not a valid CSS selector' });

export const CrawlOptionsSchema = z
  .object({
    follow_selector: SelectorSchema.optional().meta({
      description: 'CSS selector of links to follow (or of elements containing them).',
    }),
    follow_pattern: RegexSchema.optional().meta({
      description:
        'Regular expression on the absolute (normalized) URL; with follow_selector it filters those links, alone ' +
        `it picks among all links. ${FOLLOW_PATTERN_RULES}`,
    }),
    next_selector: SelectorSchema.optional().meta({
      description: 'CSS selector of the next-page link; the next page continues at the same depth.',
    }),
    max_pages: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .meta({
        default: DEFAULT_MAX_PAGES,
        description:
          "Pages processed at most (1..10000). Default 50, or your pricing tier's max_pages_per_crawl when that " +
          'is lower; more than the tier allows is a 422.',
      }),
    max_depth: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(2)
      .meta({ description: 'Link depth from the seed (0..10).' }),
    same_domain_only: z
      .boolean()
      .default(true)
      .meta({ description: 'Follow only links on the seed host (www. ignored).' }),
    delay: z
      .string()
      .regex(DELAY_PATTERN, { message: 'must be a duration such as 500ms, 1s or 1.5s, at most 60s' })
      .optional()
      .meta({
        description: 'Minimum time between the starts of two requests to the same domain, e.g. 1s or 500ms.',
      }),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(3)
      .meta({ description: 'Pages in flight at once (1..20).' }),
    respect_robots: z
      .boolean()
      .default(true)
      .meta({
        description:
          'Obey robots.txt (disallowed pages are skipped as robots_disallowed). Turn off only for sites you own. ' +
          'Read as RFC 9309 says: a robots.txt answering 4xx allows everything; 5xx, 429 or an unreachable server ' +
          'disallows everything (retried after a minute); only its first 500 KiB are read; kept per origin for 10 ' +
          'minutes.',
      }),
    // The Refyne product's crawl options where the interface is silent: honoured, or refused with a 422.
    fetch_mode: FetchModeSchema.optional().meta({
      description:
        "The crawl's fetch mode, where the Refyne product's CrawlOptions puts it: the same as the request's " +
        'fetch_mode, which wins when it is not auto.',
    }),
    max_urls: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .meta({
        description:
          "Most URLs queued, the seed included (the Refyne product's option). Every queued URL is processed, " +
          'so the crawl takes at most the smaller of max_pages and max_urls pages; links past it are skipped ' +
          '(max_pages). Default: max_pages.',
      }),
    extract_from_seeds: z
      .literal(true, { error: 'false is not offered: every crawl extracts its seed page (depth 0)' })
      .optional()
      .meta({
        description:
          "The Refyne product's option: the seed page is always extracted here, so only true is taken (false is " +
          'a 422).',
      }),
    use_sitemap: z
      .literal(false, {
        error: "true is not offered: crawls follow links; POST /api/v1/map lists a site's sitemap URLs",
      })
      .optional()
      .meta({
        description:
          "The Refyne product's option to read URLs from sitemap.xml instead of following links: not offered " +
          '(true is a 422; POST /api/v1/map lists the sitemap URLs of a site). Only false is taken.',
      }),
  })
  .strict()
  .meta({
    id: 'CrawlOptions',
    description:
      `Each page yields at most ${MAX_LINKS_PER_PAGE} distinct links (next_selector links first), ` +
      `${MAX_LINK_CHARS_PER_PAGE / 1024} KiB of URLs in all, each URL at most ${MAX_URL_LENGTH} characters; ` +
      'links past these bounds are not followed (the page still succeeds).',
  });

const e = ExtractRequestSchema.shape;

export const LEARN_EXTRACTORS_DESCRIPTION =
  'Learn extractors per page template: once the model has answered a few pages of one template (same URL ' +
  'shape and page structure), CSS selectors that read the same values on those pages answer the rest of its ' +
  "pages without the model (0 tokens). A field's candidates must all agree on a page, a required field must " +
  'come out non-empty and every value of the right type, else the page goes to the model. Every ' +
  'LEARNED_CHECK_EVERY pages (operator setting, default 200), and on the first page of each job, one ' +
  'page is checked against the model; a disagreement invalidates the extractor and re-does, by the model, ' +
  'the pages it answered since its last check (their results are replaced; the stream shows each re-done ' +
  'page as a page.completed carrying `revises`). Learns schemas of strings, numbers, integers, booleans and ' +
  'lists of those, and lists of objects of those (item containers from the repeated block, properties read ' +
  'inside each); object fields and prompts always go to the model. Page provenance names the selector read. ' +
  "A stored site's crawls keep its extractors across jobs (GET /sites/{id}/extractors). false: no learning.";

const learnExtractors = z.boolean().meta({ description: LEARN_EXTRACTORS_DESCRIPTION });
/** What a crawl job takes beside its page, options and schema: cleaners, model settings, webhooks. */
const jobFields = {
  cleaner_chain: e.cleaner_chain,
  llm_config: e.llm_config,
  capture_debug: e.capture_debug,
  structured_data: e.structured_data,
  max_age: e.max_age,
  learn_extractors: learnExtractors.default(true),
  webhook: e.webhook,
  webhook_id: e.webhook_id,
  webhook_url: e.webhook_url,
  ...BudgetFields,
};
type FetchModes = { fetch_mode: z.infer<typeof FetchModeSchema>; options: { fetch_mode?: string } };

/** A crawl's fetch mode: the request's, else its options' (where the Refyne product puts it), else auto. */
export function crawlFetchMode<B extends FetchModes>(body: B): B['fetch_mode'] {
  if (body.fetch_mode !== 'auto') return body.fetch_mode;
  return (body.options.fetch_mode ?? 'auto') as B['fetch_mode'];
}

function checkOptionsFetchMode(body: FetchModes, ctx: z.RefinementCtx) {
  const inOptions = body.options.fetch_mode;
  if (inOptions && body.fetch_mode !== 'auto' && inOptions !== body.fetch_mode)
    ctx.addIssue({
      code: 'custom',
      path: ['options', 'fetch_mode'],
      message: `differs from fetch_mode "${body.fetch_mode}": give the fetch mode once`,
    });
}

export const CrawlRequestSchema = z
  .object({
    url: e.url,
    schema: e.schema,
    schema_id: e.schema_id,
    options: CrawlOptionsSchema.default(CrawlOptionsSchema.parse({})),
    fetch_mode: e.fetch_mode,
    actions: e.actions,
    formats: e.formats,
    ...jobFields,
  })
  .strict()
  .superRefine(checkSchemaSource)
  .superRefine((body, ctx) => checkActionsMode({ ...body, fetch_mode: crawlFetchMode(body) }, ctx))
  .superRefine((body, ctx) => checkFormats({ ...body, fetch_mode: crawlFetchMode(body) }, ctx))
  .superRefine(checkOptionsFetchMode)
  .meta({ id: 'CrawlRequest', ...ONE_SCHEMA_SOURCE });
export type CrawlRequest = z.infer<typeof CrawlRequestSchema>;

/** Every crawl option, none with a default: what a caller gives to override a stored site's options. */
const optionOverrides = Object.fromEntries(
  Object.entries(CrawlOptionsSchema.shape).map(([name, field]) => [
    name,
    (field instanceof z.ZodDefault ? field.unwrap() : field).optional(),
  ]),
);

export const SiteCrawlRequestSchema = z
  .object({
    schema: e.schema,
    schema_id: e.schema_id.meta({
      description: "A stored schema's id; without schema and schema_id, the site's default_schema_id.",
    }),
    options: z
      .object(optionOverrides)
      .strict()
      .optional()
      .meta({
        description:
          "Crawl options (as in CrawlOptions) that override the site's crawl_options; an option given neither " +
          'here nor on the site takes its usual default.',
      }) as unknown as z.ZodOptional<z.ZodType<Partial<z.input<typeof CrawlOptionsSchema>>>>,
    fetch_mode: e.fetch_mode.unwrap().optional().meta({ description: "Default: the site's fetch_mode." }),
    actions: e.actions.meta({
      description: "Page actions for every page, instead of the site's actions (see CrawlRequest actions).",
    }),
    formats: e.formats,
    ...jobFields,
    learn_extractors: learnExtractors
      .optional()
      .meta({ description: "Default: the site's learn_extractors." }),
  })
  .strict()
  .superRefine(checkFormats)
  // Not both (the route checks it); neither takes the site's default_schema_id.
  .meta({ id: 'SiteCrawlRequest', not: { required: ['schema', 'schema_id'] } });
export type SiteCrawlRequest = z.infer<typeof SiteCrawlRequestSchema>;

export const CrawlQuerySchema = z.object({
  wait: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .meta({ description: 'Block until the job finishes or timeout passes.' }),
  timeout: z.coerce
    .number()
    .int()
    .min(10)
    .max(120)
    .default(120)
    .meta({ description: 'Seconds to wait (10..120) with wait=true.' }),
});

export type CrawlQuery = z.infer<typeof CrawlQuerySchema>;

export const CrawlResponseSchema = z
  .object({
    job_id: z.string(),
    status: z.string(),
    status_url: z.string(),
    queue_position: z.number().int(),
    page_count: z.number().int(),
    duration_ms: z.number().int().nullable(),
    cost_usd: z.number(),
    token_usage: z.object({ input: z.number().int(), output: z.number().int() }),
    data: z
      .array(z.unknown())
      .optional()
      .meta({
        description:
          'The page results ({id, url, status, data}; from_cache and fetched_at on pages taken from the page ' +
          'store), present when the call waited and the job finished.',
      }),
    error_message: z.string().nullable(),
  })
  .meta({ id: 'CrawlResponse' });

export const CrawlMapSchema = z
  .object({
    job_id: z.string(),
    seed_url: z.string(),
    max_depth: z.number().int(),
    total: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    error_summary: z.object({
      total: z.number().int(),
      has_rate_limit: z.boolean(),
      by_category: z.record(z.string(), z.number().int()),
    }),
    entries: z.array(
      z.object({
        id: z.string(),
        url: z.string(),
        parent_url: z.string().nullable(),
        status: z.string(),
        discovered_at: z.string(),
        completed_at: z.string().nullable(),
        error_category: z.string().nullable(),
        error_details: z.string().nullable(),
        error_message: z.string().nullable(),
        llm_model: z.string().nullable(),
        llm_provider: z.string().nullable(),
        depth: z.number().int(),
        extract_duration_ms: z.number().int().meta({
          description: 'Time the model (or learned extractor) took on the page; 0 for a page not extracted',
        }),
        fetch_duration_ms: z
          .number()
          .int()
          .meta({ description: 'Time the fetch took; 0 for a page not fetched (skipped, pending)' }),
        clean_duration_ms: z
          .number()
          .int()
          .meta({ description: 'Time the cleaner chain took; 0 for a page not cleaned' }),
        token_usage_input: z.number().int(),
        token_usage_output: z.number().int(),
        data_source: z.enum(DATA_SOURCES).nullable().meta({
          description:
            "A completed page's data source (structured_data, learned_extractor, model, mixed); null otherwise",
        }),
      }),
    ),
  })
  .meta({ id: 'CrawlMap' });
