// Saved webhooks, the destinations each job resolved at creation, and delivery records. Every hot read is by
// `_id`: deliveries by their id, a job's or a webhook's deliveries through an index doc of ids. Secrets and
// custom header values (often credentials) are sealed with the operator's SECRETS_KEY and only opened by the
// delivery activity (and, for a saved webhook's, when a job copies them into its destinations).
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { SecretBox } from '../secrets.js';
import { MASKED_HEADER_VALUE, type WebhookEvent } from '../webhooks.js';
import { COLLECTIONS, isDuplicateKey, retryOnDuplicate } from './mongo.js';
import {
  attemptField,
  type DeliveryAttempt,
  type DeliveryDoc,
  type DeliveryRecord,
  deliveryRecord,
} from './webhook-deliveries.js';

export interface WebhookHeader {
  name: string;
  value: string;
}

/** A custom header at rest: its value sealed. Documents written before sealing hold `value` in clear. */
export type StoredHeader = { name: string; sealed_value: string } | WebhookHeader;

export interface WebhookDoc {
  _id: string;
  tenant_id: string;
  name: string;
  url: string;
  sealed_secret: string | null;
  events: string[] | null;
  headers: StoredHeader[] | null;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export interface WebhookInput {
  name: string;
  url: string;
  secret?: string;
  events?: string[] | null;
  headers?: WebhookHeader[] | null;
  is_active: boolean;
}

/** One place a job's events go; `secret` and header values are plain only before they are stored. */
export interface Destination {
  webhook_id: string | null;
  url: string;
  secret: string | null;
  headers: WebhookHeader[];
  events: WebhookEvent[];
}

interface StoredDestination extends Omit<Destination, 'secret' | 'headers'> {
  sealed_secret: string | null;
  headers: StoredHeader[];
}

interface JobWebhooksDoc {
  _id: string;
  tenant_id: string;
  destinations: StoredDestination[];
}

export class WebhookStore {
  constructor(
    private readonly db: Db,
    private readonly box: () => SecretBox,
  ) {}

  private get webhooks() {
    return this.db.collection<WebhookDoc>(COLLECTIONS.webhooks);
  }
  private get jobWebhooks() {
    return this.db.collection<JobWebhooksDoc>(COLLECTIONS.jobWebhooks);
  }
  private get deliveries() {
    return this.db.collection<DeliveryDoc>(COLLECTIONS.webhookDeliveries);
  }
  private get index() {
    return this.db.collection<{ _id: string; ids: string[] }>(COLLECTIONS.webhookDeliveryIndex);
  }
  private get tenantIndex() {
    return this.db.collection<{ _id: string; ids: string[] }>(COLLECTIONS.webhookIndex);
  }

  private seal(secret: string | null | undefined): string | null {
    return secret ? this.box().seal(secret) : null;
  }

  /** Header values sealed; an old document's clear value is sealed on its way back in. */
  private sealHeaders(headers: readonly StoredHeader[]): StoredHeader[] {
    return headers.map((h) =>
      'sealed_value' in h ? h : { name: h.name, sealed_value: this.box().seal(h.value) },
    );
  }

  /** Headers with their values opened: sealed ones, and the clear ones of documents written before sealing. */
  openHeaders(headers: readonly StoredHeader[] | null): WebhookHeader[] {
    return (headers ?? []).map((h) =>
      'sealed_value' in h ? { name: h.name, value: this.box().open(h.sealed_value) } : { ...h },
    );
  }

  /**
   * The headers of an update: a value sent back as the mask (GET, edit, PUT) keeps the stored value of the
   * header with that name; any other value replaces it.
   */
  private updatedHeaders(existing: readonly StoredHeader[] | null, input: readonly WebhookHeader[]) {
    const stored = new Map((existing ?? []).map((h) => [h.name.toLowerCase(), h]));
    return this.sealHeaders(
      input.map((h) => {
        const kept = h.value === MASKED_HEADER_VALUE ? stored.get(h.name.toLowerCase()) : undefined;
        return kept ? { ...kept, name: h.name } : h;
      }),
    );
  }

  /**
   * The tenant's saved webhooks, oldest first: read for every job it starts, so by `_id` through the tenant's
   * index document (one read when it has none).
   */
  async list(tenantId: string): Promise<WebhookDoc[]> {
    const ids = (await this.tenantIndex.findOne({ _id: tenantId }))?.ids ?? [];
    const docs = await Promise.all(ids.map((_id) => this.webhooks.findOne({ _id })));
    return docs
      .filter((d): d is WebhookDoc => d !== null && d.tenant_id === tenantId)
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  }

  async get(tenantId: string, id: string): Promise<WebhookDoc | null> {
    const doc = await this.webhooks.findOne({ _id: id });
    return doc && doc.tenant_id === tenantId ? doc : null;
  }

  /** Creates a webhook; null when the tenant already has one with that name. */
  async create(tenantId: string, input: WebhookInput): Promise<WebhookDoc | null> {
    const now = new Date().toISOString();
    const doc: WebhookDoc = {
      _id: `wh_${randomUUID().replaceAll('-', '')}`,
      tenant_id: tenantId,
      name: input.name,
      url: input.url,
      sealed_secret: this.seal(input.secret),
      events: input.events ?? null,
      headers: input.headers ? this.sealHeaders(input.headers) : null,
      is_active: input.is_active,
      created_at: now,
      updated_at: now,
    };
    // Listed first, so a webhook is never stored unlisted; a name clash takes it off the list again.
    await this.listed(tenantId, { $addToSet: { ids: doc._id } });
    try {
      await this.webhooks.insertOne(doc);
      return doc;
    } catch (err) {
      await this.listed(tenantId, { $pull: { ids: doc._id } });
      if (isDuplicateKey(err)) return null;
      throw err;
    }
  }

  private listed(tenantId: string, change: { $addToSet: { ids: string } } | { $pull: { ids: string } }) {
    return retryOnDuplicate(() => this.tenantIndex.updateOne({ _id: tenantId }, change, { upsert: true }));
  }

  /** Replaces the fields of a webhook; a missing secret keeps the stored one, an empty one removes it. */
  async update(existing: WebhookDoc, input: WebhookInput): Promise<WebhookDoc | 'conflict'> {
    const doc: WebhookDoc = {
      ...existing,
      name: input.name,
      url: input.url,
      sealed_secret: input.secret === undefined ? existing.sealed_secret : this.seal(input.secret),
      events: input.events === undefined ? existing.events : input.events,
      headers:
        input.headers === undefined
          ? existing.headers && this.sealHeaders(existing.headers)
          : input.headers && this.updatedHeaders(existing.headers, input.headers),
      is_active: input.is_active,
      updated_at: new Date().toISOString(),
    };
    // Checked first (a tenant has few webhooks): not every backend reports a unique-index clash on update.
    const clash = (await this.list(existing.tenant_id)).some((w) => w.name === doc.name && w._id !== doc._id);
    if (clash) return 'conflict';
    try {
      await this.webhooks.replaceOne({ _id: existing._id }, doc);
      return doc;
    } catch (err) {
      if (isDuplicateKey(err)) return 'conflict';
      throw err;
    }
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    if (!(await this.get(tenantId, id))) return false;
    const { deletedCount } = await this.webhooks.deleteOne({ _id: id });
    await this.listed(tenantId, { $pull: { ids: id } });
    return deletedCount === 1;
  }

  /** The plain secret of a saved webhook, to copy into a job's destinations. */
  openSecret(doc: WebhookDoc): string | null {
    return doc.sealed_secret ? this.box().open(doc.sealed_secret) : null;
  }

  async putJobDestinations(jobId: string, tenantId: string, destinations: Destination[]): Promise<void> {
    const stored = destinations.map(({ secret, headers, ...d }) => ({
      ...d,
      sealed_secret: this.seal(secret),
      headers: this.sealHeaders(headers),
    }));
    await this.jobWebhooks.replaceOne(
      { _id: jobId },
      { tenant_id: tenantId, destinations: stored },
      { upsert: true },
    );
  }

  /** Gives a new job (a retry) the destinations of another, as they were stored. */
  async copyJobDestinations(fromJobId: string, toJobId: string): Promise<void> {
    const doc = await this.jobWebhooks.findOne({ _id: fromJobId });
    if (!doc) return;
    const { _id, ...rest } = doc;
    await this.jobWebhooks.replaceOne({ _id: toJobId }, rest, { upsert: true });
  }

  /** A job's destination with its secret and headers opened, or null when the job has no such destination. */
  async jobDestination(jobId: string, index: number): Promise<Destination | null> {
    const stored = (await this.jobWebhooks.findOne({ _id: jobId }))?.destinations[index];
    if (!stored) return null;
    const { sealed_secret, headers, ...rest } = stored;
    return {
      ...rest,
      secret: sealed_secret ? this.box().open(sealed_secret) : null,
      headers: this.openHeaders(headers),
    };
  }

  async getDelivery(id: string): Promise<DeliveryDoc | null> {
    return this.deliveries.findOne({ _id: id });
  }

  /** Creates the delivery (or returns the one an earlier try of the same attempt created) and indexes it. */
  async createDelivery(doc: DeliveryDoc): Promise<DeliveryDoc> {
    let stored = doc;
    try {
      await this.deliveries.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      stored = (await this.getDelivery(doc._id)) ?? doc;
    }
    const keys = [`job:${doc.job_id}`, ...(doc.webhook_id ? [`webhook:${doc.webhook_id}`] : [])];
    await Promise.all(
      keys.map((key) =>
        retryOnDuplicate(() =>
          this.index.updateOne({ _id: key }, { $addToSet: { ids: doc._id } }, { upsert: true }),
        ),
      ),
    );
    return stored;
  }

  /**
   * Records one attempt in its own field of the delivery: recording it again (an activity run twice)
   * replaces only that record, and no record of another attempt is read or rewritten.
   */
  async recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void> {
    const field = attemptField(attempt.attempt_number);
    const { matchedCount } = await this.deliveries.updateOne({ _id: id }, { $set: { [field]: attempt } });
    if (matchedCount !== 1) throw new Error(`delivery ${id} not found`);
  }

  /** Deliveries of a job or a webhook (`job:<id>` / `webhook:<id>`), newest first. */
  async listDeliveries(
    key: string,
    page?: { limit: number; offset: number },
  ): Promise<{ deliveries: DeliveryRecord[]; total: number }> {
    const ids = [...((await this.index.findOne({ _id: key }))?.ids ?? [])].reverse();
    const slice = page ? ids.slice(page.offset, page.offset + page.limit) : ids;
    const docs = await Promise.all(slice.map((id) => this.getDelivery(id)));
    const found = docs.filter((d): d is DeliveryDoc => d !== null);
    return { deliveries: found.map(deliveryRecord), total: ids.length };
  }
}
