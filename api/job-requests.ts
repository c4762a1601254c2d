// What a job-starting request becomes before its job starts: the schema parsed (inline or stored), the
// model settings checked, the webhook destinations resolved, and the job's spec made from it.
// Used by every route that starts an extract or a crawl (extract, crawl, site crawl, re-extract, monitors).
import { budgetInput } from '../shared/budget.js';
import { defaultChainFor, keepInChain } from '../shared/cleaners.js';
import { CategorizedError } from '../shared/errors.js';
import { type NormalizedSchema, normalizeSchema, validateSchemaYaml } from '../shared/schema-input.js';
import { actionsInput, type PageAction } from '../shared/schemas/actions.js';
import {
  type CrawlRequest,
  crawlFetchMode,
  DEFAULT_MAX_PAGES,
  parseDuration,
} from '../shared/schemas/crawl.js';
import { type ExtractRequest, maxAgeInput } from '../shared/schemas/extract.js';
import type { CrawlSpec, ExtractSpec } from '../shared/schemas/job-spec.js';
import type { LlmConfig } from '../shared/schemas/llm.js';
import type { WebhookDoc } from '../shared/store/webhooks.js';
import type { ApiDeps } from './deps.js';
import { checkLlmConfig, jobLlmConfig } from './llm-config.js';
import { ProblemError } from './problem.js';
import { resolveWebhooks, type WebhookSources, withWebhooks } from './webhook-destinations.js';

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
 * with the job before the workflow starts, so only a flag travels) and the webhook destinations
 * (`savedWebhooks`: the tenant's saved ones already being read, webhook-destinations.ts readSavedWebhooksAhead).
 */
export async function prepareJobRequest(
  deps: ApiDeps,
  tenantId: string,
  body: WebhookSources & { schema?: unknown; schema_id?: string; llm_config?: LlmConfig },
  savedWebhooks?: Promise<WebhookDoc[]>,
) {
  const stored = body.schema_id ? await usableSchema(deps, tenantId, body.schema_id, 'body.schema_id') : null;
  const schema = stored
    ? parseSchemaField(stored.schema_yaml, 'body.schema_id', validateSchemaYaml)
    : parseSchemaField(body.schema, 'body.schema');
  const llm = body.llm_config && (await checkLlmConfig(deps, tenantId, body.llm_config));
  const hooks = await resolveWebhooks(deps, tenantId, body, savedWebhooks);
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

/** An extract request's job spec (monitors store it to create each run's job). */
export function extractSpec(
  body: ExtractRequest,
  prepared: Awaited<ReturnType<typeof prepareJobRequest>>,
): ExtractSpec {
  return {
    kind: 'extract',
    url: body.url,
    ...actionsInput(body),
    cleanerChain: body.cleaner_chain ?? defaultChainFor(prepared.schema),
    schema: prepared.schema,
    captureDebug: body.capture_debug,
    structuredData: body.structured_data,
    llm: prepared.llm,
    ...prepared.webhooks,
    ...budgetInput(body),
    ...maxAgeInput(body),
  };
}

/** A crawl request's job spec (monitors store it to create each run's job). */
export function crawlSpec(
  body: CrawlRequest,
  prepared: Awaited<ReturnType<typeof prepareJobRequest>>,
  siteId?: string,
  tierMaxPages: number | null = null,
): CrawlSpec {
  // fetch_mode, max_urls, extract_from_seeds, use_sitemap: the Refyne product's options, read here.
  const { delay, fetch_mode, max_urls, extract_from_seeds, use_sitemap, ...rules } = body.options;
  // Not given: 50, or fewer when the tenant's tier allows fewer (given and too many: refused by runCrawl).
  const maxPages = rules.max_pages ?? Math.min(DEFAULT_MAX_PAGES, tierMaxPages ?? DEFAULT_MAX_PAGES);
  return {
    kind: 'crawl',
    url: body.url,
    ...actionsInput({ ...body, fetch_mode: crawlFetchMode(body) }),
    // The links the crawl follows stay visible to the model whatever the cleaners remove.
    cleanerChain: keepInChain<CrawlSpec['cleanerChain'][number]>(
      body.cleaner_chain ?? defaultChainFor(prepared.schema),
      [rules.follow_selector, rules.next_selector].filter((v): v is string => Boolean(v)),
    ),
    schema: prepared.schema,
    captureDebug: body.capture_debug,
    structuredData: body.structured_data,
    learnExtractors: body.learn_extractors,
    ...(siteId ? { siteId } : {}),
    llm: prepared.llm,
    options: {
      ...rules,
      max_pages: Math.min(maxPages, max_urls ?? maxPages),
      delay_ms: delay ? (parseDuration(delay) ?? 0) : 0,
    },
    ...prepared.webhooks,
    ...budgetInput(body),
    ...maxAgeInput(body),
  };
}

/** The secret names a list of actions types. */
export function secretNames(actions: readonly PageAction[] | undefined): string[] {
  return (actions ?? []).flatMap((a) => (a.kind === 'type' && a.secret !== undefined ? [a.secret] : []));
}

/**
 * A job's page actions never type a secret: a secret is typed only by its site's login recipe, whose page is
 * never captured. A job's own steps could type it where the job's key reads it back (a screenshot, a search
 * box the result shows): 422 at body.actions.
 */
export function refuseSecrets(actions: readonly PageAction[] | undefined): void {
  const [name] = secretNames(actions);
  if (name === undefined) return;
  const location = 'body.actions';
  throw new ProblemError({
    slug: 'validation-error',
    detail: `The request has invalid fields: ${location}`,
    errors: [{ location, message: secretOnlyInLogin(name) }],
  });
}

export const secretOnlyInLogin = (name: string) =>
  `secret "${name}": a secret is typed only by the site's login recipe (PUT /sites/{id}/session), never by page actions`;
