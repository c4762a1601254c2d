// Tenants and their API keys. Keys are random, shown once, and stored only as SHA-256 hashes.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { type ApiKeyScope, type ApiVersion, DEFAULT_API_VERSION } from '../api-keys.js';
import { COLLECTIONS, isDuplicateKey, retryOnDuplicate } from './mongo.js';

export interface Tenant {
  _id: string;
  name: string;
  rate_limit_per_minute: number | null;
  /** What the tenant's jobs may spend on model calls per calendar month (UTC), in USD; absent/null: no cap. */
  monthly_budget_usd?: number | null;
  /** The pricing tier the operator set (PRICING_TIERS); absent: the default tier. */
  tier?: string | null;
  created_at: string;
}

/** `_id` is the key's SHA-256, so authenticating a request is one lookup by `_id`. */
export interface ApiKeyDoc {
  _id: string;
  /** Public id, shown in lists and used to delete the key. */
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  /** Absent on keys made before scopes: full. */
  scopes?: ApiKeyScope[];
  /** The API version the key's requests get unless they name one (X-API-Version); absent: v1. */
  api_version?: ApiVersion;
  /** After this time the key is refused (401); absent or null: never. */
  expires_at?: string | null;
}

export interface NewKeyOptions {
  scopes?: ApiKeyScope[];
  api_version?: ApiVersion;
  expires_at?: string | null;
}

export const keyScopes = (doc: ApiKeyDoc): ApiKeyScope[] => doc.scopes ?? ['full'];
export const keyApiVersion = (doc: ApiKeyDoc): ApiVersion => doc.api_version ?? DEFAULT_API_VERSION;

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const newApiKey = () => `sk_${randomBytes(24).toString('base64url')}`;

/** Key lookups kept at most (the oldest is dropped first). */
const KEY_CACHE_MAX = 10_000;

type KeyLookup = { tenant: Tenant; key: ApiKeyDoc };

export class TenantStore {
  /**
   * Key lookups (by the key's hash) reused for `keyCacheMs` (API_KEY_CACHE_MS), so an API request costs no
   * read to authenticate. Every change made through this store (a key deleted or changed, a tenant's limits)
   * empties it, and a lookup that began before such a change is not kept: changes made here apply at once,
   * changes made by another process within `keyCacheMs`. An unknown key is never kept (a new key works at once).
   */
  private readonly keyCache = new Map<string, { found: KeyLookup; until: number }>();
  /** Counts the changes that emptied the cache (a lookup read before one is not kept). */
  private keyChanges = 0;

  constructor(
    private readonly db: Db,
    private readonly keyCacheMs = 0,
  ) {}

  private forgetKeys() {
    this.keyChanges++;
    this.keyCache.clear();
  }

  /** The key's record and tenant, from the cache while they are young enough, else read (and kept). */
  private async lookUpKey(hash: string): Promise<KeyLookup | null> {
    const cached = this.keyCache.get(hash);
    if (cached && cached.until > Date.now()) return cached.found;
    if (cached) this.keyCache.delete(hash);
    const changes = this.keyChanges;
    const key = await this.keys.findOne({ _id: hash });
    const tenant = key ? await this.getTenant(key.tenant_id) : null;
    if (!key || !tenant) return null;
    const found = { tenant, key };
    if (this.keyCacheMs > 0 && changes === this.keyChanges) {
      this.keyCache.set(hash, { found, until: Date.now() + this.keyCacheMs });
      if (this.keyCache.size > KEY_CACHE_MAX)
        this.keyCache.delete(this.keyCache.keys().next().value as string);
    }
    return found;
  }

  private get tenants() {
    return this.db.collection<Tenant>(COLLECTIONS.tenants);
  }
  private get keys() {
    return this.db.collection<ApiKeyDoc>(COLLECTIONS.apiKeys);
  }
  /** Per tenant, public key id → the key's `_id`: lists and deletes read by `_id`, never by tenant_id. */
  private get keyIndex() {
    return this.db.collection<{ _id: string; keys: Record<string, string> }>(COLLECTIONS.apiKeyIndex);
  }

  async ensureTenant(name: string): Promise<Tenant> {
    const existing = await this.tenants.findOne({ name });
    if (existing) return existing;
    const tenant: Tenant = {
      _id: `ten_${randomUUID().replaceAll('-', '')}`,
      name,
      rate_limit_per_minute: null,
      created_at: new Date().toISOString(),
    };
    try {
      await this.tenants.insertOne(tenant);
      return tenant;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.tenants.findOne({ name }))!;
    }
  }

  async getTenant(id: string): Promise<Tenant | null> {
    return this.tenants.findOne({ _id: id });
  }

  async setRateLimit(tenantId: string, perMinute: number | null): Promise<void> {
    await this.tenants.updateOne({ _id: tenantId }, { $set: { rate_limit_per_minute: perMinute } });
    this.forgetKeys();
  }

  async setTier(tenantId: string, tier: string | null): Promise<void> {
    await this.tenants.updateOne({ _id: tenantId }, { $set: { tier } });
    this.forgetKeys();
  }

  async setMonthlyBudget(tenantId: string, usd: number | null): Promise<void> {
    await this.tenants.updateOne({ _id: tenantId }, { $set: { monthly_budget_usd: usd } });
    this.forgetKeys();
  }

  /** Creates a key and returns its plain value: the only time it is ever visible. */
  async createKey(
    tenantId: string,
    name: string,
    options: NewKeyOptions = {},
    plain = newApiKey(),
  ): Promise<{ key: string; doc: ApiKeyDoc }> {
    const doc: ApiKeyDoc = {
      _id: hashApiKey(plain),
      id: `key_${randomUUID().replaceAll('-', '')}`,
      tenant_id: tenantId,
      name,
      prefix: plain.slice(0, 7),
      created_at: new Date().toISOString(),
      last_used_at: null,
      scopes: options.scopes ?? ['full'],
      api_version: options.api_version ?? DEFAULT_API_VERSION,
      expires_at: options.expires_at ?? null,
    };
    // Listed first, so a key is never stored unlisted (an entry whose key is missing is skipped).
    await retryOnDuplicate(() =>
      this.keyIndex.updateOne({ _id: tenantId }, { $set: { [`keys.${doc.id}`]: doc._id } }, { upsert: true }),
    );
    await this.keys.insertOne(doc);
    return { key: plain, doc };
  }

  /** Registers a key the operator chose (bootstrap); a key already registered is left as it is. */
  async ensureKey(tenantId: string, name: string, plain: string): Promise<void> {
    if (await this.keys.findOne({ _id: hashApiKey(plain) })) return;
    try {
      await this.createKey(tenantId, name, {}, plain);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** The key's tenant and record; null for an unknown or expired key. */
  async findByKey(plain: string, now = new Date()): Promise<KeyLookup | null> {
    const found = await this.lookUpKey(hashApiKey(plain));
    if (!found) return null;
    const { expires_at } = found.key;
    return expires_at && Date.parse(expires_at) <= now.getTime() ? null : found;
  }

  /** A key by its stored `_id` (its hash), if it still exists and has not expired. */
  async findKeyByHash(hash: string, now = new Date()): Promise<ApiKeyDoc | null> {
    const key = await this.keys.findOne({ _id: hash });
    if (!key || (key.expires_at && Date.parse(key.expires_at) <= now.getTime())) return null;
    return key;
  }

  /** Reads at most one key, whatever the number of keys (an empty filter with a limit stops at the first). */
  async hasAnyKey(): Promise<boolean> {
    return (
      (
        await this.keys
          .find({}, { projection: { _id: 1 } })
          .limit(1)
          .toArray()
      ).length > 0
    );
  }

  async listKeys(tenantId: string): Promise<ApiKeyDoc[]> {
    const hashes = Object.values((await this.keyIndex.findOne({ _id: tenantId }))?.keys ?? {});
    const docs = await Promise.all(hashes.map((_id) => this.keys.findOne({ _id })));
    return docs
      .filter((d): d is ApiKeyDoc => d !== null && d.tenant_id === tenantId)
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  }

  /** The `_id` of the tenant's key with this public id (another tenant's id names nothing). */
  private async keyHash(tenantId: string, keyId: string): Promise<string | null> {
    return (await this.keyIndex.findOne({ _id: tenantId }))?.keys[keyId] ?? null;
  }

  async setKeyApiVersion(tenantId: string, keyId: string, version: ApiVersion): Promise<boolean> {
    const _id = await this.keyHash(tenantId, keyId);
    if (!_id) return false;
    const res = await this.keys.updateOne({ _id }, { $set: { api_version: version } });
    this.forgetKeys();
    return res.matchedCount === 1;
  }

  async deleteKey(tenantId: string, keyId: string): Promise<boolean> {
    const _id = await this.keyHash(tenantId, keyId);
    if (!_id) return false;
    const res = await this.keys.deleteOne({ _id });
    this.forgetKeys();
    await this.keyIndex.updateOne({ _id: tenantId }, { $unset: { [`keys.${keyId}`]: '' } });
    return res.deletedCount === 1;
  }
}
