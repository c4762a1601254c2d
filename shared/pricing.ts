// List prices in USD per million tokens. A model not listed costs 0 and is reported as price_known=false.
const PRICES: Record<string, { input: number; output: number }> = {
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'claude-3-5-haiku-latest': { input: 0.8, output: 4 },
  'claude-3-5-sonnet-latest': { input: 3, output: 15 },
  'claude-sonnet-4-0': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-opus-4-1': { input: 15, output: 75 },
};

export interface Cost {
  llm_cost_usd: number;
  price_known: boolean;
}

export function priceOf(model: string, inputTokens: number, outputTokens: number): Cost {
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  const price = PRICES[bare];
  if (!price) return { llm_cost_usd: 0, price_known: false };
  const usd = (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
  return { llm_cost_usd: Math.round(usd * 1e9) / 1e9, price_known: true };
}
