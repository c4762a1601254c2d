// Stored sites: a URL with the fetch mode, crawl options, default schema and analysis that suit it.
import { z } from 'zod';
import { ActionsSchema, PageActionSchema } from './actions.js';
import { AnalysisResultSchema } from './analyze.js';
import { FetchModeSchema, HttpUrlSchema, TimestampSchema } from './common.js';
import { FOLLOW_PATTERN_RULES, RegexSchema, SelectorSchema } from './crawl.js';

const crawlOptionFields = {
  follow_pattern: RegexSchema.meta({
    description: `Regular expression on absolute URLs (crawl follow_pattern). ${FOLLOW_PATTERN_RULES}`,
  }),
  follow_selector: SelectorSchema.meta({
    description: 'CSS selector of links to follow (crawl follow_selector).',
  }),
  max_depth: z.number().int().min(0).max(10).meta({ description: 'Link depth from the seed (0..10).' }),
  max_pages: z.number().int().min(1).max(10_000).meta({ description: 'Pages processed at most (1..10000).' }),
};

export const SiteCrawlOptionsInputSchema = z
  .object({
    follow_pattern: crawlOptionFields.follow_pattern.nullable().optional(),
    follow_selector: crawlOptionFields.follow_selector.nullable().optional(),
    max_depth: crawlOptionFields.max_depth.nullable().optional(),
    max_pages: crawlOptionFields.max_pages.nullable().optional(),
  })
  .strict()
  .meta({
    id: 'SiteCrawlOptionsRequest',
    description: 'Crawl options for the site, with the bounds of a crawl request; a missing option is null.',
  });

export const SiteCrawlOptionsSchema = z
  .object({
    // Not re-checked on the way out: a site saved before patterns ran on RE2 still reads (its crawl is refused).
    follow_pattern: z
      .string()
      .nullable()
      .meta({ description: 'Regular expression on absolute URLs (crawl follow_pattern).' }),
    follow_selector: crawlOptionFields.follow_selector.nullable(),
    max_depth: crawlOptionFields.max_depth.nullable(),
    max_pages: crawlOptionFields.max_pages.nullable(),
  })
  .meta({ id: 'SiteCrawlOptions', description: 'Crawl options saved with the site; null when not set.' });
export type SiteCrawlOptions = z.infer<typeof SiteCrawlOptionsSchema>;

/** An analyze response can be saved as is: its job_id and sample_data are accepted and dropped. */
export const SiteAnalysisInputSchema = AnalysisResultSchema.extend({
  job_id: z.string().optional().meta({ description: 'Accepted from an analyze response, not stored.' }),
  sample_data: z.unknown().optional().meta({ description: 'Accepted from an analyze response, not stored.' }),
}).meta({
  id: 'SiteAnalysisRequest',
  description: 'An analysis result (2.13). The body of an analyze response can be passed unchanged.',
});

const defaultSchemaId = z.string().min(1).max(200).nullable().meta({
  description:
    'A stored schema you can use (yours or a public one) for crawls of this site; 422 otherwise. null clears it.',
});

const siteFields = {
  name: z.string().trim().min(1).max(200),
  fetch_mode: FetchModeSchema,
  default_schema_id: defaultSchemaId,
  crawl_options: SiteCrawlOptionsInputSchema,
  analysis_result: SiteAnalysisInputSchema.nullable(),
  learn_extractors: z.boolean().meta({
    description:
      "Whether the site's crawls learn extractors per page template and keep them across jobs (see " +
      'learn_extractors on POST /crawl); a crawl request may override it.',
  }),
  actions: ActionsSchema.refine((actions) => !actions.some((a) => a.kind === 'type' && a.secret), {
    message:
      "a secret is typed only by the site's login recipe (PUT /sites/{id}/session), never by page actions",
  })
    .nullable()
    .meta({
      description:
        "Page actions run on every page of the site's crawls (as actions on POST /crawl; they need the browser, " +
        "so the site's crawls fetch in dynamic mode). A type step may not take secret: only the site's login " +
        'recipe types secrets. A crawl request may give its own. null clears them.',
      example: [{ kind: 'click', selector: '#cookie-accept' }],
    }),
};

export const SiteCreateSchema = z
  .object({
    url: HttpUrlSchema.meta({ description: 'The site entry URL; its host becomes the domain.' }),
    name: siteFields.name.optional().meta({ description: 'Default: the domain.' }),
    fetch_mode: siteFields.fetch_mode.default('auto'),
    default_schema_id: siteFields.default_schema_id.default(null),
    crawl_options: siteFields.crawl_options.default({}),
    analysis_result: siteFields.analysis_result.default(null),
    learn_extractors: siteFields.learn_extractors.default(true),
    actions: siteFields.actions.default(null),
  })
  .strict()
  .meta({ id: 'SiteCreateRequest' });
export type SiteCreate = z.infer<typeof SiteCreateSchema>;

export const SiteUpdateSchema = z
  .object({
    ...siteFields,
    url: z.string().meta({ description: 'Ignored: a site keeps the URL (and domain) it was created with.' }),
  })
  .partial()
  .strict()
  .meta({
    id: 'SiteUpdateRequest',
    description:
      'Every field is optional and a missing one keeps its value. crawl_options, when given, replaces the ' +
      'stored options as a whole; null clears default_schema_id or analysis_result.',
  });
export type SiteUpdate = z.infer<typeof SiteUpdateSchema>;

export const SiteSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    domain: z.string().meta({ description: 'The host of url, lower case.' }),
    fetch_mode: FetchModeSchema,
    default_schema_id: z.string().nullable(),
    organization_id: z.string().meta({ description: 'The tenant that owns the site.' }),
    user_id: z.string().meta({ description: 'The id of the API key that created the site.' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
    crawl_options: SiteCrawlOptionsSchema,
    analysis_result: AnalysisResultSchema.nullable(),
    learn_extractors: z.boolean(),
    actions: z
      .array(PageActionSchema)
      .nullable()
      .meta({ description: "Page actions run on every page of the site's crawls; null: none." }),
  })
  .meta({
    id: 'Site',
    description:
      'A saved site. POST /api/v1/sites/{id}/crawl crawls it with these settings (url, crawl_options, ' +
      'fetch_mode, default_schema_id); POST /api/v1/crawl does not read them.',
  });
export type Site = z.infer<typeof SiteSchema>;

export const SiteListSchema = z
  .object({ sites: z.array(SiteSchema), total: z.number().int() })
  .meta({ id: 'SiteList' });

const candidateFields = {
  selector: z.string().meta({
    description:
      "CSS selector; empty for a field learned as absent (null), or for a list item's container itself",
  }),
  attribute: z.string().optional().meta({ description: 'The attribute read instead of the text' }),
  read: z.enum(['exact', 'own', 'affix', 'number', 'duration', 'lookup', 'url', 'items', 'absent']).meta({
    description:
      'How the node becomes the value: its text (exact), its own text without its child elements (own: a ' +
      'title whose heading also holds a subtitle), its text between prefix and suffix, the number_index-th ' +
      'number in it, the text as a duration ("1 hr 15 mins") in the field\'s unit, the text looked up in the answers seen (numbers in it as #), a link or image URL made ' +
      "absolute, or a list of objects (every match is one item's container; properties lists the candidates " +
      'read inside it, relative to it)',
  }),
  prefix: z.string().optional(),
  suffix: z.string().optional(),
  number_index: z.number().int().optional(),
  lookup: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  list: z.boolean().meta({ description: 'Every match is one item of a list field' }),
};

const NestedCandidateSchema = z.object(candidateFields);

export const LearnedCandidateSchema = z
  .object({
    ...candidateFields,
    properties: z.record(z.string(), z.array(NestedCandidateSchema)).optional(),
  })
  .meta({ id: 'LearnedCandidate' });
export type LearnedCandidate = z.infer<typeof LearnedCandidateSchema>;

export const LearnedExtractorSchema = z
  .object({
    id: z.string(),
    url_shape: z
      .string()
      .meta({ description: 'Host and path with the parts naming one page (ids, slugs) as :v' }),
    dom_signature: z.string().meta({
      description:
        'Fingerprint of the structure sketch (tags and classes, text ignored) of the page the template was made ' +
        'for; pages of a URL shape are matched to the template whose pages they are most alike',
    }),
    schema_hash: z.string().meta({ description: "Hash of the schema's fields the extractor answers" }),
    status: z.enum(['learning', 'verified', 'unlearnable']),
    reason: z
      .string()
      .nullable()
      .meta({ description: 'Why it is unlearnable, or why learning last restarted' }),
    fields: z.record(z.string(), z.array(LearnedCandidateSchema)).meta({
      description: "Per field, the candidates that read the model's value on every page (all must agree)",
    }),
    learned_from: z.array(z.string()),
    verified_on: z.array(z.string()),
    verified_at: TimestampSchema.nullable(),
    last_checked_at: TimestampSchema.nullable(),
    checks_passed: z.number().int(),
    invalidations: z.number().int(),
    pages_answered: z.number().int(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'LearnedExtractor' });
export type LearnedExtractor = z.infer<typeof LearnedExtractorSchema>;

export const LearnedExtractorListSchema = z
  .object({ extractors: z.array(LearnedExtractorSchema), total: z.number().int() })
  .meta({ id: 'LearnedExtractorList' });
