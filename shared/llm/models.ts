// The models a provider offers, with context size and list prices, from the price catalogue cost is computed
// with (@pydantic/genai-prices, bundled data): GET /api/v1/llm/models/{provider}. Providers without list
// prices (ollama, openai_compatible) name whatever their endpoint serves, so the catalogue has none for them.
import { findProvider, type ModelInfo, type ModelPrice } from '@pydantic/genai-prices';
import { CATALOGUE_PROVIDER } from '../pricing.js';

export interface ModelListing {
  id: string;
  name: string;
  description: string | null;
  context_size: number | null;
  /** USD per million input / output tokens; null when the catalogue's price depends on conditions. */
  input_price_per_mtok: number | null;
  output_price_per_mtok: number | null;
  is_free: boolean;
  deprecated: boolean;
}

/** A flat price (one number per unit); a tiered or conditional one is not a single list price. */
function flatPrice(prices: ModelInfo['prices']): ModelPrice | null {
  return Array.isArray(prices) ? null : prices;
}

const perMtok = (price: ModelPrice | null, key: string): number | null => {
  const value = price?.[key];
  return typeof value === 'number' ? value : null;
};

export function listModels(provider: string): ModelListing[] {
  const catalogueId = CATALOGUE_PROVIDER[provider];
  const entry = catalogueId ? findProvider({ providerId: catalogueId }) : undefined;
  if (!entry) return [];
  return entry.models
    .map((model) => {
      const price = flatPrice(model.prices);
      const input = perMtok(price, 'input_mtok');
      const output = perMtok(price, 'output_mtok');
      return {
        id: model.id,
        name: model.name ?? model.id,
        description: model.description ?? null,
        context_size: model.context_window ?? null,
        input_price_per_mtok: input,
        output_price_per_mtok: output,
        is_free: input === 0 && output === 0,
        deprecated: model.deprecated ?? false,
      };
    })
    .sort((a, b) => a.id.localeCompare(b.id));
}
