// Resolves a job's webhook destinations when the job is created: the named saved webhook (webhook_id), the
// inline webhook, webhook_url, then every active saved webhook of the tenant. Per event a URL gets one
// delivery: the first source (in that order) naming the URL for the event wins. Also what a destination may
// be: a URL the address policy allows, and stored credentials only on the origin they were given for.
import type { FastifyRequest } from 'fastify';
import { checkCallerHost } from '../shared/net/address-policy.js';
import type { WebhookPlan } from '../shared/schemas/job-spec.js';
import type { WebhookRequest } from '../shared/schemas/webhooks.js';
import type { Destination, WebhookDoc } from '../shared/store/webhooks.js';
import { expandEvents, MASKED_HEADER_VALUE, type WebhookEvent } from '../shared/webhooks.js';
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';

export interface WebhookSources {
  webhook?: {
    url: string;
    secret?: string;
    headers?: { name: string; value: string }[];
    events?: string[] | null;
  };
  webhook_id?: string;
  webhook_url?: string;
}

export interface ResolvedWebhooks {
  plan: WebhookPlan;
  /** Stores the destinations with the job (before its workflow starts). */
  store: (jobId: string) => Promise<void>;
}

/** A webhook URL must be a public address unless the operator allows private ones, never link-local or metadata (checked again at delivery). */
export async function checkWebhookUrl(deps: ApiDeps, url: string, location: string): Promise<void> {
  try {
    await checkCallerHost(new URL(url).hostname, { allowPrivate: deps.config.ALLOW_PRIVATE_ADDRESSES });
  } catch (err) {
    const message = `the webhook URL is not allowed: ${(err as Error).message}`;
    throw new ProblemError({
      slug: 'validation-error',
      detail: message,
      errors: [{ location, message, value: url }],
    });
  }
}

const originOf = (url: string) => new URL(url).origin;

/**
 * Stored credentials stay with the origin (scheme, host, port) they were given for: a PUT moving the webhook
 * to another origin must give again every header value it sends back masked, the headers if it leaves them
 * out, and the secret (else deliveries signed with it reach the new receiver, which could replay them to the
 * old one). So nobody holding an API key of the tenant can redirect them unseen.
 */
export function checkCredentialsMove(existing: WebhookDoc, body: WebhookRequest) {
  if (originOf(existing.url) === originOf(body.url)) return;
  const move = 'the webhook moves to another origin:';
  const errors: { location: string; message: string; value?: string }[] = [];
  const stored = new Set((existing.headers ?? []).map((h) => h.name.toLowerCase()));
  if (body.headers === undefined && stored.size > 0) {
    const message = `${move} its stored headers are not sent there, give them again`;
    errors.push({ location: 'body.headers', message });
  }
  for (const h of body.headers ?? []) {
    if (h.value === MASKED_HEADER_VALUE && stored.has(h.name.toLowerCase())) {
      const message = `${move} the stored value of ${h.name} is not sent there, give it again`;
      errors.push({ location: `body.headers.${h.name}`, message, value: h.value });
    }
  }
  if (body.secret === undefined && existing.sealed_secret !== null) {
    const message = `${move} its stored secret is not used there, give it again (or "" for none)`;
    errors.push({ location: 'body.secret', message });
  }
  if (errors.length === 0) return;
  throw new ProblemError({
    slug: 'validation-error',
    detail: `${move} ${errors.map((e) => e.location).join(', ')} must be given again`,
    errors,
  });
}

const fromSaved = (deps: ApiDeps, doc: WebhookDoc): Destination => ({
  webhook_id: doc._id,
  url: doc.url,
  secret: deps.webhooks.openSecret(doc),
  headers: deps.webhooks.openHeaders(doc.headers),
  events: expandEvents(doc.events),
});

/** The tenant's saved webhooks being read for a request since it arrived (readSavedWebhooksAhead). */
const readAhead = new WeakMap<FastifyRequest, Promise<WebhookDoc[]>>();

/**
 * A route's onRequest hook: starts reading the tenant's saved webhooks as soon as the request is
 * authenticated, so the read runs beside the rate-limit count (preParsing) instead of after it. A read only:
 * a request refused meanwhile leaves nothing behind. resolveWebhooks takes it (savedWebhooksFor).
 */
export const readSavedWebhooksAhead =
  (deps: ApiDeps) =>
  async (request: FastifyRequest): Promise<void> => {
    if (!request.tenant) return;
    const saved = deps.webhooks.list(request.tenant._id);
    saved.catch(() => undefined); // awaited by resolveWebhooks, unless the request is refused first
    readAhead.set(request, saved);
  };

/** The request's saved webhooks read ahead (for its own tenant), if any. */
export function savedWebhooksFor(
  request: FastifyRequest,
  tenantId: string,
): Promise<WebhookDoc[]> | undefined {
  return request.tenant?._id === tenantId ? readAhead.get(request) : undefined;
}

/**
 * null when the job has no destination: its workflow then runs exactly as without webhooks. `saved`: the
 * tenant's saved webhooks already being read (readSavedWebhooksAhead); read here otherwise.
 */
export async function resolveWebhooks(
  deps: ApiDeps,
  tenantId: string,
  body: WebhookSources,
  saved?: Promise<WebhookDoc[]>,
): Promise<ResolvedWebhooks | null> {
  const candidates: Destination[] = [];
  if (body.webhook_id) {
    const named = await deps.webhooks.get(tenantId, body.webhook_id);
    if (!named) {
      const message = `no webhook ${body.webhook_id}`;
      throw new ProblemError({
        slug: 'validation-error',
        detail: message,
        errors: [{ location: 'body.webhook_id', message, value: body.webhook_id }],
      });
    }
    candidates.push(fromSaved(deps, named));
  }
  if (body.webhook) {
    await checkWebhookUrl(deps, body.webhook.url, 'body.webhook.url');
    candidates.push({
      webhook_id: null,
      url: body.webhook.url,
      secret: body.webhook.secret || null,
      headers: body.webhook.headers ?? [],
      events: expandEvents(body.webhook.events),
    });
  }
  if (body.webhook_url) {
    await checkWebhookUrl(deps, body.webhook_url, 'body.webhook_url');
    candidates.push({
      webhook_id: null,
      url: body.webhook_url,
      secret: null,
      headers: [],
      events: expandEvents(null),
    });
  }
  for (const doc of await (saved ?? deps.webhooks.list(tenantId))) {
    if (doc.is_active && doc._id !== body.webhook_id) candidates.push(fromSaved(deps, doc));
  }
  const claimed = new Map<string, Set<WebhookEvent>>();
  const destinations: Destination[] = [];
  for (const candidate of candidates) {
    const key = new URL(candidate.url).href;
    const taken = claimed.get(key) ?? new Set<WebhookEvent>();
    claimed.set(key, taken);
    const events = candidate.events.filter((e) => !taken.has(e));
    for (const e of events) taken.add(e);
    if (events.length > 0) destinations.push({ ...candidate, events });
  }
  if (destinations.length === 0) return null;
  return {
    plan: {
      destinations: destinations.map((d) => ({ events: d.events })),
      retryDelaysMs: deps.config.WEBHOOK_RETRY_DELAYS_MS,
    },
    store: (jobId) => deps.webhooks.putJobDestinations(jobId, tenantId, destinations),
  };
}

/** A job's beforeStart step followed by storing its webhook destinations. */
export function withWebhooks(
  before: ((jobId: string) => Promise<void>) | undefined,
  hooks: ResolvedWebhooks | null,
): ((jobId: string) => Promise<void>) | undefined {
  if (!hooks) return before;
  return async (jobId) => {
    await before?.(jobId);
    await hooks.store(jobId);
  };
}

/**
 * A job whose request names no destination (analyze, map): the tenant's registered webhooks only. `webhooks`
 * goes into the workflow input, `beforeStart` stores the destinations with the job.
 */
export async function tenantWebhooks(deps: ApiDeps, tenantId: string) {
  const hooks = await resolveWebhooks(deps, tenantId, {});
  return { beforeStart: withWebhooks(undefined, hooks), webhooks: hooks ? { webhooks: hooks.plan } : {} };
}
