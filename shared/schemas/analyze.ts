// POST /api/v1/analyze and the analysis result, also stored on sites.
import { z } from 'zod';
import { PageActionSchema } from './actions.js';
import { FetchModeSchema, HttpUrlSchema } from './common.js';

export const PAGE_TYPES = [
  'listing',
  'detail',
  'product',
  'article',
  'search_results',
  'homepage',
  'documentation',
  'form',
  'other',
] as const;

export const ELEMENT_TYPES = [
  'repeated_item',
  'pagination',
  'navigation',
  'table',
  'form',
  'heading',
  'image',
  'price',
  'date',
  'link_list',
  'text_block',
] as const;

export const PageTypeSchema = z.enum(PAGE_TYPES).meta({
  id: 'PageType',
  description:
    'What kind of page this is. listing: many similar items linking to their own pages; detail: one item of a ' +
    'listing (not a product); product: one product with a price; article: one long text (news, blog post); ' +
    'search_results: a listing answering a query; homepage: a site entry page mixing sections; documentation: ' +
    'reference or guide text with code or a table of contents; form: a page whose main content is a form; ' +
    'other: none of these.',
});

export const ElementTypeSchema = z.enum(ELEMENT_TYPES).meta({
  id: 'ElementType',
  description:
    'repeated_item: a repeated block (cards, rows, list items) — count is the number of repetitions; pagination: ' +
    'links to further pages of the same listing; navigation: site menu links; table: data tables; form: forms; ' +
    'heading: h1–h3 headings; image: content images; price: price-looking texts; date: <time> elements or dates; ' +
    'link_list: a group of links sharing a pattern; text_block: paragraphs of body text.',
});

export const DetectedElementSchema = z
  .object({
    name: z.string().meta({ description: 'Short name, e.g. "product cards".' }),
    type: ElementTypeSchema,
    description: z
      .string()
      .meta({ description: 'What the element holds and where (a CSS selector is given).' }),
    count: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'How many were found on the page (counted, not guessed).' }),
  })
  .meta({ id: 'DetectedElement' });

export const FollowPatternSchema = z
  .object({
    pattern: z.string().meta({
      description: 'A regular expression on absolute URLs, usable as a crawl follow_pattern as is.',
    }),
    description: z.string(),
    sample_urls: z
      .array(z.string())
      .meta({ description: 'Links on the page that match the pattern (every one of them matches).' }),
  })
  .meta({ id: 'FollowPattern' });

export const LoadMoreFindingSchema = z
  .object({
    kind: z.enum(['load_more_button', 'infinite_scroll']).meta({
      description:
        'load_more_button: a button that shows more items in place (text, aria-label, id or class like "Load ' +
        'more"); infinite_scroll: signs that more items appear on scrolling (infinite-scroll classes, data ' +
        'attributes or scripts).',
    }),
    selector: z
      .string()
      .meta({ description: 'The button, or the element that showed the sign', example: '#more' }),
    description: z.string(),
    actions: z.array(PageActionSchema).meta({
      description:
        'Page actions that expand the listing, to copy as they are into the actions of /extract or /crawl ' +
        "(they run in dynamic mode); bounded by max (clicks) or max_scrolls and, with the listing's item " +
        'selector, max_items.',
      example: [{ kind: 'click', selector: '#more', repeat: true, max: 20, wait_after_ms: 1000 }],
    }),
  })
  .meta({ id: 'LoadMoreFinding' });
export type LoadMoreFinding = z.infer<typeof LoadMoreFindingSchema>;

/** The analysis as stored on a site (the analysis without job_id and sample_data). */
export const AnalysisResultSchema = z
  .object({
    page_type: PageTypeSchema,
    recommended_fetch_mode: z.enum(['static', 'dynamic']).meta({
      description:
        'static when a plain HTTP fetch already shows the content the rendered page shows; dynamic when the ' +
        'content only appears after scripts run.',
    }),
    site_summary: z.string(),
    suggested_schema: z.string().meta({
      description:
        'A structured schema (YAML text with name and fields) that /extract and /crawl accept as their schema.',
    }),
    sample_links: z.array(z.string()),
    detected_elements: z.array(DetectedElementSchema),
    follow_patterns: z.array(FollowPatternSchema),
    load_more: LoadMoreFindingSchema.nullable()
      .optional()
      .meta({
        description:
          'A "Load more" button or infinite scroll found on the page, with the actions that show all items; ' +
          'null when none was found (absent on analyses recorded before it was looked for).',
      }),
  })
  .meta({ id: 'AnalysisResult' });
export type AnalysisResult = z.infer<typeof AnalysisResultSchema>;

export const AnalyzeRequestSchema = z
  .object({
    url: HttpUrlSchema,
    depth: z.number().int().min(0).max(1).default(0).meta({
      description:
        '0: the page alone; 1: also a sample of the pages it links to, to tell which pattern leads to details.',
    }),
    fetch_mode: FetchModeSchema.default('auto'),
    capture_debug: z.boolean().default(true),
  })
  .strict()
  .meta({ id: 'AnalyzeRequest' });
export type AnalyzeRequest = z.infer<typeof AnalyzeRequestSchema>;

export const SCHEMA_SOURCES = ['model', 'model_retry', 'page_structure'] as const;
export const SchemaSourceSchema = z.enum(SCHEMA_SOURCES).meta({
  id: 'SchemaSource',
  description:
    'Where suggested_schema comes from. The suggested schema is applied to the analysed page and must yield ' +
    "something (items on a listing, values on a single item). model: the model's first suggestion did; " +
    'model_retry: it did not, and the model, asked again with the fields that came out empty and what the ' +
    'page structure shows, suggested one that did; page_structure: neither did, so the schema is built from ' +
    "the page's structure (repeated blocks, prices, headings, labelled values) and sample_data was read off " +
    'the page by the selectors in its field descriptions, without a model call.',
});
export type SchemaSource = z.infer<typeof SchemaSourceSchema>;

export const AnalyzeResponseSchema = AnalysisResultSchema.extend({
  job_id: z.string(),
  sample_data: z.unknown().meta({ description: 'suggested_schema applied to this page.' }),
  schema_source: SchemaSourceSchema.optional().meta({
    description: 'Present on every analysis except those recorded before the check existed.',
  }),
  schema_note: z
    .string()
    .optional()
    .meta({
      description:
        'One or two sentences on the check: what each schema tried yielded on this page and why this one was ' +
        'kept, e.g. "The model\'s first schema extracted 0 items from this page (isbn came out empty); asked ' +
        'again with what went wrong, its second schema: 12 items extracted."',
    }),
}).meta({ id: 'AnalyzeResponse' });
export type AnalyzeResponse = z.infer<typeof AnalyzeResponseSchema>;
