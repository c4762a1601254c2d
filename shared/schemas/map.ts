// POST /api/v1/map: a site's URLs from its sitemaps and a shallow walk of its links, without extraction.
import { z } from 'zod';
import { MAX_URL_LENGTH } from '../crawl/links.js';
import { ErrorCategorySchema, HttpUrlSchema, TimestampSchema } from './common.js';

/** URLs a map lists at most (the request's limit is 1..this). */
export const MAP_MAX_LIMIT = 10_000;
/** Characters of URL a map lists at most, all URLs together: keeps its one result far below 16 MB. */
export const MAP_MAX_URL_CHARS = 2 * 1024 * 1024;
/** A sitemap's bytes at most, after decompression: a larger one (or a gzip bomb) is skipped with a warning. */
export const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;
/** Sitemap bytes read in all by one map, after decompression. */
export const SITEMAP_TOTAL_MAX_BYTES = 50 * 1024 * 1024;
/** Sitemap files fetched at most (indexes included), and how deep indexes may nest. */
export const MAX_SITEMAPS = 50;
export const MAX_SITEMAP_DEPTH = 3;
/** <loc> entries read from one sitemap at most (the sitemap protocol's own bound). */
export const MAX_SITEMAP_ENTRIES = 50_000;
/** Pages the link walk fetches: the start page and at most this many of the pages it links to. */
export const MAX_WALK_PAGES = 10;
/** How long a map looks for URLs before it answers with what it has found. */
export const MAP_TIME_BUDGET_MS = 45_000;
/** Warnings an answer carries at most. */
export const MAX_MAP_WARNINGS = 20;

export const MapRequestSchema = z
  .object({
    url: HttpUrlSchema.meta({
      description: "The site's start page; its host decides which URLs belong to the site.",
      example: 'https://example.com',
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAP_MAX_LIMIT)
      .default(1000)
      .meta({ description: `URLs listed at most (1..${MAP_MAX_LIMIT}).`, example: 1000 }),
    include_subdomains: z
      .boolean()
      .default(false)
      .meta({
        description:
          'Also list URLs on subdomains of the start host (blog.example.com for example.com). Off: only the ' +
          'start host, with or without a leading "www." (the crawl\'s same-domain rule).',
      }),
    search: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .meta({
        description:
          'Keep only URLs containing every word of this text, case-insensitively (plain text, not a pattern), ' +
          'e.g. "blog 2026".',
        example: 'blog',
      }),
    use_sitemap: z
      .boolean()
      .default(true)
      .meta({
        description:
          "Read the site's sitemaps: those named by robots.txt (Sitemap: lines), else /sitemap.xml; sitemap " +
          'indexes are followed, gzip sitemaps read. Off: only the link walk.',
      }),
    ignore_query: z.boolean().default(false).meta({
      description: 'Drop query strings, so /item?id=1 and /item?id=2 are one URL (/item).',
    }),
    respect_robots: z
      .boolean()
      .default(true)
      .meta({
        description:
          'Obey robots.txt as crawls do: pages and sitemaps it disallows are not fetched, URLs it disallows are ' +
          'not listed. Turn off only for sites you own.',
      }),
  })
  .strict()
  .meta({
    id: 'MapRequest',
    example: { url: 'https://example.com', limit: 500, search: 'blog', include_subdomains: false },
  });
export type MapRequest = z.infer<typeof MapRequestSchema>;

export const MAP_URL_SOURCES = ['sitemap', 'links'] as const;
export type MapUrlSource = (typeof MAP_URL_SOURCES)[number];

export const MapUrlSchema = z
  .object({
    url: z.string().meta({
      description: `Normalised as crawls normalise links (no fragment, sorted query, no tracking parameters, at most ${MAX_URL_LENGTH} characters).`,
      example: 'https://example.com/blog/first-post',
    }),
    source: z.enum(MAP_URL_SOURCES).meta({
      description: 'sitemap: listed by a sitemap; links: the start page or a link on a walked page.',
    }),
    lastmod: TimestampSchema.optional().meta({ description: "The sitemap's <lastmod>, when it gave one." }),
  })
  .meta({ id: 'MapUrl' });
export type MapUrl = z.infer<typeof MapUrlSchema>;

export const MapWarningSchema = z
  .object({
    url: z.string().meta({ description: 'The sitemap or page concerned.' }),
    error_category: ErrorCategorySchema,
    message: z.string(),
  })
  .meta({
    id: 'MapWarning',
    description:
      'A source that was skipped: a sitemap over the size bound or whose gzip decompresses past it ' +
      '(content_too_large), one that answered an error (http_status) or could not be read, a page robots.txt ' +
      'disallows, or the time budget running out (timeout). The map goes on without it.',
  });
export type MapWarning = z.infer<typeof MapWarningSchema>;

/** What a map job records as its one result (GET /jobs/{id}/results gives it as the item's data). */
export const MapResultSchema = z
  .object({
    url: z.string().meta({ description: 'The start URL as asked.' }),
    urls: z.array(MapUrlSchema).meta({ description: 'Sitemap URLs first, in sitemap order, then links.' }),
    total: z.number().int().meta({ description: 'How many URLs are listed.' }),
    truncated: z.boolean().meta({
      description: `More URLs matched than limit (or ${MAP_MAX_URL_CHARS / 1024 / 1024} MiB of URL text) allows.`,
    }),
    sitemaps_read: z.number().int().meta({ description: 'Sitemap files read (indexes included).' }),
    pages_read: z.number().int().meta({ description: 'Pages the link walk read.' }),
    warnings: z.array(MapWarningSchema).meta({ description: `At most ${MAX_MAP_WARNINGS}.` }),
  })
  .meta({ id: 'MapResult' });
export type MapResult = z.infer<typeof MapResultSchema>;

export const MapResponseSchema = MapResultSchema.extend({
  job_id: z.string(),
  status: z.literal('completed'),
}).meta({
  id: 'MapResponse',
  example: {
    job_id: 'job_4f1c0b6e2a7d4e0c9b8a7f6e5d4c3b2a',
    status: 'completed',
    url: 'https://example.com',
    urls: [
      { url: 'https://example.com/blog/first-post', source: 'sitemap', lastmod: '2026-11-20T00:00:00.000Z' },
      { url: 'https://example.com/about', source: 'links' },
    ],
    total: 2,
    truncated: false,
    sitemaps_read: 2,
    pages_read: 1,
    warnings: [],
  },
});
export type MapResponse = z.infer<typeof MapResponseSchema>;
