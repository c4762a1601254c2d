// Resolves a job's webhook destinations when the job is created: the named saved webhook (webhook_id), the
// inline webhook, webhook_url, then every active saved webhook of the tenant. Per event a URL gets one
// delivery: the first source (in that order) naming the URL for the event wins.
import { checkCallerHost } from '../shared/net/address-policy.js';
import type { Destination, WebhookDoc } from '../shared/store/webhooks.js';
import { expandEvents, type WebhookEvent, type WebhookPlan } from '../shared/webhooks.js';
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

const fromSaved = (deps: ApiDeps, doc: WebhookDoc): Destination => ({
  webhook_id: doc._id,
  url: doc.url,
  secret: deps.webhooks.openSecret(doc),
  headers: deps.webhooks.openHeaders(doc.headers),
  events: expandEvents(doc.events),
});

/** null when the job has no destination: its workflow then runs exactly as without webhooks. */
export async function resolveWebhooks(
  deps: ApiDeps,
  tenantId: string,
  body: WebhookSources,
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
  for (const doc of await deps.webhooks.list(tenantId)) {
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
