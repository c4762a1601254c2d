// Model list prices from the maintained genai-prices catalogue (bundled data, no network). A model it does
// not know costs 0 and is reported with price_known=false.
import { calcPrice } from '@pydantic/genai-prices';

export interface Cost {
  llm_cost_usd: number;
  price_known: boolean;
}

/** Our provider names → the catalogue's; OpenAI-compatible endpoints and Ollama have no list price. */
export const CATALOGUE_PROVIDER: Record<string, string | undefined> = {
  openai: 'openai',
  anthropic: 'anthropic',
  openrouter: 'openrouter',
};

export function priceOf(model: string, inputTokens: number, outputTokens: number, provider?: string): Cost {
  if (provider === 'ollama' || provider === 'openai_compatible')
    return { llm_cost_usd: 0, price_known: false };
  const providerId = provider ? CATALOGUE_PROVIDER[provider] : undefined;
  const usage = { input_tokens: inputTokens, output_tokens: outputTokens };
  const price =
    calcPrice(usage, model, providerId ? { providerId } : undefined) ??
    // "openai/gpt-4o" style names outside OpenRouter: try the bare model.
    (model.includes('/') ? calcPrice(usage, model.slice(model.lastIndexOf('/') + 1)) : null);
  if (!price) return { llm_cost_usd: 0, price_known: false };
  return { llm_cost_usd: Math.round(price.total_price * 1e9) / 1e9, price_known: true };
}
