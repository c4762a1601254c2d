// A tenant's model settings: provider keys (sealed with the operator's SECRETS_KEY, never returned), the
// ordered fallback chain, and one-job keys given in a request's llm_config. All lookups by `_id`.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { PROVIDER_NAMES } from '../llm/catalog.js';
import type { SecretBox } from '../secrets.js';
import { COLLECTIONS } from './mongo.js';

export interface LlmKeyDoc {
  _id: string; // `${tenant}:${provider}`
  id: string;
  tenant_id: string;
  provider: string;
  sealed_key: string | null;
  base_url: string | null;
  is_enabled: boolean;
  /** The model an llm_config naming the provider without a model runs; absent on keys stored before it. */
  default_model?: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChainEntryDoc {
  id: string;
  provider: string;
  model: string;
  is_enabled: boolean;
  temperature: number;
  max_tokens: number;
  position: number;
  created_at: string;
  updated_at: string;
}

interface ChainDoc {
  _id: string; // tenant
  entries: ChainEntryDoc[];
}

interface JobSecretDoc {
  _id: string; // job id
  sealed_key: string;
}

export interface ChainEntryInput {
  provider: string;
  model: string;
  is_enabled?: boolean;
  temperature?: number;
  max_tokens?: number;
}

export const DEFAULT_TEMPERATURE = 0;
export const DEFAULT_MAX_TOKENS = 4096;

export class LlmSettingsStore {
  constructor(
    private readonly db: Db,
    private readonly box: () => SecretBox,
  ) {}

  private get keys() {
    return this.db.collection<LlmKeyDoc>(COLLECTIONS.llmKeys);
  }
  private get chains() {
    return this.db.collection<ChainDoc>(COLLECTIONS.llmChains);
  }
  private get jobSecrets() {
    return this.db.collection<JobSecretDoc>(COLLECTIONS.jobSecrets);
  }

  /** The tenant's keys by provider name: one read by `_id` per provider of the catalogue, none scans. */
  async listKeys(tenantId: string): Promise<LlmKeyDoc[]> {
    const found = await Promise.all(PROVIDER_NAMES.map((provider) => this.getKey(tenantId, provider)));
    return found
      .filter((doc): doc is LlmKeyDoc => doc !== null)
      .sort((a, b) => (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0));
  }

  async getKey(tenantId: string, provider: string): Promise<LlmKeyDoc | null> {
    return this.keys.findOne({ _id: `${tenantId}:${provider}` });
  }

  /** Creates or updates the key for a provider; an empty or missing api_key keeps the stored one. */
  async putKey(
    tenantId: string,
    input: {
      provider: string;
      api_key?: string;
      base_url?: string | null;
      is_enabled: boolean;
      default_model?: string;
    },
  ): Promise<LlmKeyDoc> {
    const now = new Date().toISOString();
    const existing = await this.getKey(tenantId, input.provider);
    const doc: LlmKeyDoc = {
      _id: `${tenantId}:${input.provider}`,
      id: existing?.id ?? `llmkey_${randomUUID().replaceAll('-', '')}`,
      tenant_id: tenantId,
      provider: input.provider,
      sealed_key: input.api_key ? this.box().seal(input.api_key) : (existing?.sealed_key ?? null),
      base_url: input.base_url === undefined ? (existing?.base_url ?? null) : input.base_url || null,
      is_enabled: input.is_enabled,
      default_model:
        input.default_model === undefined ? (existing?.default_model ?? null) : input.default_model || null,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.keys.replaceOne({ _id: doc._id }, doc, { upsert: true });
    return doc;
  }

  async deleteKey(tenantId: string, provider: string): Promise<boolean> {
    return (await this.keys.deleteOne({ _id: `${tenantId}:${provider}` })).deletedCount === 1;
  }

  /** Deletes the tenant's key with this id, or for this provider; false when it has neither. */
  async deleteKeyByIdOrProvider(tenantId: string, idOrProvider: string): Promise<boolean> {
    const byId = (await this.listKeys(tenantId)).find((key) => key.id === idOrProvider);
    return this.deleteKey(tenantId, byId ? byId.provider : idOrProvider);
  }

  /** The plain key, for the activity about to call the provider. */
  async openKey(doc: LlmKeyDoc): Promise<string | null> {
    return doc.sealed_key ? this.box().open(doc.sealed_key) : null;
  }

  async getChain(tenantId: string): Promise<ChainEntryDoc[]> {
    return (await this.chains.findOne({ _id: tenantId }))?.entries ?? [];
  }

  /** Replaces the chain; entries keep their id and created_at when provider and model are unchanged. */
  async putChain(tenantId: string, entries: ChainEntryInput[]): Promise<ChainEntryDoc[]> {
    const now = new Date().toISOString();
    const before = await this.getChain(tenantId);
    const next = entries.map((e, position): ChainEntryDoc => {
      const same = before.find((b) => b.provider === e.provider && b.model === e.model);
      return {
        id: same?.id ?? `chain_${randomUUID().replaceAll('-', '')}`,
        provider: e.provider,
        model: e.model,
        is_enabled: e.is_enabled ?? true,
        temperature: e.temperature ?? DEFAULT_TEMPERATURE,
        max_tokens: e.max_tokens ?? DEFAULT_MAX_TOKENS,
        position,
        created_at: same?.created_at ?? now,
        updated_at: now,
      };
    });
    await this.chains.replaceOne({ _id: tenantId }, { entries: next }, { upsert: true });
    return next;
  }

  /** A key given in one request's llm_config: sealed, kept with the job, never in workflow history. */
  async putJobKey(jobId: string, apiKey: string): Promise<void> {
    const doc = { _id: jobId, sealed_key: this.box().seal(apiKey) };
    await this.jobSecrets.replaceOne({ _id: jobId }, doc, { upsert: true });
  }

  /** Forgets a one-job key (a monitor's, when it is deleted or replaced). */
  async deleteJobKey(jobId: string): Promise<void> {
    await this.jobSecrets.deleteOne({ _id: jobId });
  }

  async openJobKey(jobId: string): Promise<string | null> {
    const doc = await this.jobSecrets.findOne({ _id: jobId });
    return doc ? this.box().open(doc.sealed_key) : null;
  }
}
