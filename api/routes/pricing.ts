// GET /pricing/tiers: the operator's pricing tiers (PRICING_TIERS) and the limits applied to the caller.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PricingTierListSchema } from '../../shared/schemas/pricing.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import { appliedLimits, pricingTiers } from '../../shared/tiers.js';
import type { ApiDeps } from '../deps.js';

const DESCRIPTION = `The named limit sets the operator offers (PRICING_TIERS; without it one tier, default, with the
service's defaults) and your tenant's: the request rate (429 past it), the monthly model budget (a hard cap on every
model call), the jobs running at once (429 too-many-jobs) and the pages per crawl (422 past it). The operator sets a
tenant's tier (admin set-tier); a rate limit or budget set for the tenant alone wins over its tier's. refyne version:
the product's ListTierLimitsOutputBody: requests_per_minute, credit_allocation_usd (the monthly budget), 0 for no
limit, credit_rollover_months and monthly_extractions 0 (credits do not roll over; extractions are not counted).`;

export const pricingRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/pricing/tiers',
      {
        schema: {
          summary: 'The pricing tiers and the limits that apply to you',
          description: DESCRIPTION,
          tags: ['pricing'],
          response: { 200: PricingTierListSchema, ...standardErrors },
        },
      },
      async (request) => ({
        tiers: pricingTiers(deps.config),
        your_tier: appliedLimits(deps.config, request.tenant),
      }),
    );
  };
