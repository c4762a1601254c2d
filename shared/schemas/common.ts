import { z } from 'zod';
import { ERROR_CATEGORIES } from '../errors.js';

export const TimestampSchema = z.string().meta({
  description: 'RFC 3339 timestamp in UTC with milliseconds, e.g. 2026-11-23T10:00:00.000Z',
  example: '2026-11-23T10:00:00.000Z',
});

export const ErrorCategorySchema = z.enum(ERROR_CATEGORIES).meta({
  id: 'ErrorCategory',
  description:
    'Why a job or page failed. One closed vocabulary shared by jobs, pages, crawl maps and problem documents. ' +
    "login_required: a stored site's page matched its session's logged_out rule and no login recipe (or a failed " +
    'one) got past it (PUT /sites/{id}/session).',
});

export const FetchModeSchema = z.enum(['auto', 'static', 'dynamic']).meta({
  description:
    'How to fetch the page. static: one HTTP request. dynamic: rendered in headless Chromium (waits for the ' +
    'network to go quiet, bounded). auto (default): static first, switching to the browser when the page needs ' +
    'scripts to show its content (no visible text, an empty app mount point, a noscript wall, very little text ' +
    'with scripts, or a JavaScript challenge); metadata.fetch_mode says which was used. Every request, including ' +
    "the browser's, passes the address policy (link-local and cloud metadata addresses are refused even where " +
    'private ones are allowed). Size bounds (content_too_large): the page itself at most FETCH_MAX_BYTES; in ' +
    'dynamic mode also its DOM while scripts run (measured every 200 ms) and everything it downloads in all ' +
    '(document, scripts, images, fetches) at most 4 × FETCH_MAX_BYTES.',
});
export type FetchMode = z.infer<typeof FetchModeSchema>;
/** The mode a page was fetched in: auto resolves to one of these. */
export type ResolvedFetchMode = Exclude<FetchMode, 'auto'>;

export const IdParamsSchema = z.object({ id: z.string().min(1).max(200) });

export const PaginationQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Page size, 1..100.' }),
  offset: z.coerce.number().int().min(0).default(0).meta({ description: 'Items to skip.' }),
});

export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': z.string().min(1).max(200).optional().meta({
    description:
      'Makes the POST safe to retry: a second request with the same key returns the same job instead of starting another.',
  }),
});

export const HttpUrlSchema = z
  .string()
  .min(1, { abort: true })
  .max(4096, { abort: true })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http(s) URL' },
  )
  .meta({ format: 'uri', description: 'Absolute http or https URL' });

export const FieldProvenanceSchema = z
  .object({
    source: z.enum(['structured_data', 'learned_extractor', 'model']),
    path: z.string().optional().meta({
      description: 'structured_data: the entity and property read, e.g. `json-ld Product offers.price`',
    }),
    selector: z.string().optional().meta({ description: 'learned_extractor: the CSS selector read' }),
    in_page: z
      .boolean()
      .nullable()
      .optional()
      .meta({
        description:
          'model: whether the value occurs verbatim in the content the model was sent (strings by their text, ' +
          'numbers as written in any usual way, lists and objects by every value inside). false flags a value ' +
          'the page does not show; null when it cannot be looked up (booleans, empty values).',
      }),
    offset: z.number().int().optional().meta({
      description: "model, in_page true: the first occurrence's character offset in that content",
    }),
  })
  .meta({ id: 'FieldProvenance' });

export const ProvenanceSchema = z.record(z.string(), FieldProvenanceSchema).meta({
  id: 'Provenance',
  description:
    "Where each top-level field's value came from: the page's structured data, a learned extractor, or the model.",
});
