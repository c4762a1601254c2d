// GET /pricing/tiers: the operator's named limit sets and the limits that apply to the caller's tenant.
import { z } from 'zod';

const limitFields = {
  rate_limit_per_minute: z.number().int().meta({ description: 'API requests per minute (429 past it)' }),
  monthly_budget_usd: z
    .number()
    .nullable()
    .meta({
      description:
        "Most the tenant's jobs spend on model calls per calendar month (UTC), a hard cap checked before every " +
        'model call; null: no cap',
    }),
  max_concurrent_jobs: z.number().int().nullable().meta({
    description:
      'Jobs running at once; one more is a 429 problem (too-many-jobs) with Retry-After; null: no limit',
  }),
  max_pages_per_crawl: z
    .number()
    .int()
    .nullable()
    .meta({
      description:
        "A crawl's max_pages at most (more is a 422; a crawl giving none takes 50 or this, the lower); null: the " +
        "interface's 10000",
    }),
};

export const PricingTierSchema = z
  .object({
    name: z.string().meta({ description: "The tier's name (what the operator sets on a tenant)" }),
    display_name: z.string(),
    is_default: z.boolean().meta({ description: 'The tier of tenants the operator set none for' }),
    ...limitFields,
  })
  .meta({ id: 'PricingTier' });

export const PricingTierListSchema = z
  .object({
    tiers: z.array(PricingTierSchema),
    your_tier: z.object({ tier: z.string(), ...limitFields }).meta({
      description:
        "Your tenant's tier and the limits that apply to it: the tier's, except a rate limit or monthly " +
        'budget the operator set for your tenant alone',
    }),
  })
  .meta({ id: 'PricingTierList' });
