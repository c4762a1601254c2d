// The crawl request a stored site stands for (POST /sites/{id}/crawl, a monitor of a site): the site's saved
// settings, each overridden by what the request gives.
import { CrawlOptionsSchema, type CrawlRequest, type SiteCrawlRequest } from '../shared/schemas/crawl.js';
import type { SiteDoc } from '../shared/store/sites.js';
import { ProblemError } from './problem.js';

/**
 * The crawl request a site stands for: its URL, its saved options and fetch mode, and its default schema,
 * each overridden by what the request gives.
 */
export function siteCrawlRequest(site: SiteDoc, body: SiteCrawlRequest): CrawlRequest {
  const saved = Object.fromEntries(
    Object.entries(site.crawl_options).filter(([, value]) => value !== null && value !== undefined),
  );
  if (body.schema !== undefined && body.schema_id !== undefined) {
    throw schemaProblem('schema_id', 'give schema or schema_id, not both');
  }
  const schemaId = body.schema === undefined ? (body.schema_id ?? site.default_schema_id) : undefined;
  if (body.schema === undefined && !schemaId) {
    // The request is well formed; it is the site's state (no default schema) that leaves it without one.
    throw new ProblemError({
      slug: 'conflict',
      detail: 'The site has no default_schema_id: give schema or schema_id (or set the site default).',
      errors: [{ location: 'body.schema', message: 'required: the site has no default_schema_id' }],
    });
  }
  return {
    url: site.url,
    ...(body.schema === undefined ? { schema_id: schemaId as string } : { schema: body.schema }),
    // Overrides are checked by the route; parsing the merge fills the usual defaults and re-checks what was
    // saved (a follow_pattern saved before patterns ran on RE2 may no longer be accepted).
    options: mergedOptions(saved, body.options),
    fetch_mode: body.fetch_mode ?? site.fetch_mode,
    ...((body.actions ?? site.actions) ? { actions: body.actions ?? site.actions ?? undefined } : {}),
    ...(body.formats ? { formats: body.formats } : {}),
    cleaner_chain: body.cleaner_chain,
    llm_config: body.llm_config,
    capture_debug: body.capture_debug,
    structured_data: body.structured_data,
    learn_extractors: body.learn_extractors ?? site.learn_extractors ?? true,
    webhook: body.webhook,
    webhook_id: body.webhook_id,
    webhook_url: body.webhook_url,
    max_cost_usd: body.max_cost_usd,
    max_tokens: body.max_tokens,
    max_age: body.max_age,
  };
}

function mergedOptions(saved: object, overrides: SiteCrawlRequest['options']): CrawlRequest['options'] {
  const parsed = CrawlOptionsSchema.safeParse({ ...saved, ...overrides });
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.map((issue) => ({
    location: `site.crawl_options.${issue.path.join('.')}`,
    message: issue.message,
  }));
  throw new ProblemError({
    slug: 'validation-error',
    detail: `The site's saved crawl options are invalid: ${errors.map((e) => e.location).join(', ')}`,
    errors,
  });
}

function schemaProblem(field: 'schema' | 'schema_id', message: string) {
  return new ProblemError({
    slug: 'validation-error',
    detail: `The request has invalid fields: body.${field}`,
    errors: [{ location: `body.${field}`, message }],
  });
}
