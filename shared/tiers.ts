// Pricing tiers: the operator's named limit sets (PRICING_TIERS) and the limits a tenant gets from its tier,
// its own settings (admin set-rate-limit, set-budget) winning over the tier's. Pure: the API's rate limit, job
// starts and crawl bounds, and the worker's budget guard read the same rules.
import type { Config, PricingTierConfig } from './config.js';
import type { Tenant } from './store/tenants.js';

export interface TierLimits {
  rate_limit_per_minute: number;
  /** null: no cap. */
  monthly_budget_usd: number | null;
  max_concurrent_jobs: number | null;
  max_pages_per_crawl: number | null;
}

export interface PricingTier extends TierLimits {
  name: string;
  display_name: string;
  is_default: boolean;
}

/** The tier a tenant without one gets: DEFAULT_PRICING_TIER, else the first configured, else "default". */
export function defaultTierName(config: Config): string {
  return config.DEFAULT_PRICING_TIER ?? Object.keys(config.PRICING_TIERS ?? {})[0] ?? 'default';
}

export function pricingTiers(config: Config): PricingTier[] {
  const configured = Object.entries(config.PRICING_TIERS ?? {});
  const implicit: [string, PricingTierConfig][] = [['default', { display_name: 'Default' }]];
  const tiers = configured.length > 0 ? configured : implicit;
  const fallback = defaultTierName(config);
  return tiers.map(([name, tier]) => ({
    name,
    display_name: tier.display_name ?? name,
    is_default: name === fallback,
    rate_limit_per_minute: tier.rate_limit_per_minute ?? config.RATE_LIMIT_PER_MINUTE,
    monthly_budget_usd: tier.monthly_budget_usd ?? null,
    max_concurrent_jobs: tier.max_concurrent_jobs ?? null,
    max_pages_per_crawl: tier.max_pages_per_crawl ?? null,
  }));
}

/** The tenant's tier: the one the operator set, while it exists, else the default one. */
export function tierOf(config: Config, tenant: Pick<Tenant, 'tier'>): PricingTier {
  const tiers = pricingTiers(config);
  const named = tenant.tier ? tiers.find((t) => t.name === tenant.tier) : undefined;
  return named ?? tiers.find((t) => t.is_default) ?? (tiers[0] as PricingTier);
}

/** What applies to the tenant: its own rate limit and monthly budget when set, else its tier's. */
export function appliedLimits(
  config: Config,
  tenant: Pick<Tenant, 'tier' | 'rate_limit_per_minute' | 'monthly_budget_usd'>,
): TierLimits & { tier: string } {
  const tier = tierOf(config, tenant);
  return {
    tier: tier.name,
    rate_limit_per_minute: tenant.rate_limit_per_minute ?? tier.rate_limit_per_minute,
    monthly_budget_usd:
      tenant.monthly_budget_usd === undefined ? tier.monthly_budget_usd : tenant.monthly_budget_usd,
    max_concurrent_jobs: tier.max_concurrent_jobs,
    max_pages_per_crawl: tier.max_pages_per_crawl,
  };
}
