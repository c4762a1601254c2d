// GET /api/v1/cleaners: the cleaners a cleaner_chain can name, with their options (shared/cleaners.ts).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ANALYSIS_CLEANER_CHAIN, DEFAULT_CLEANER_CHAIN, describeCleaners } from '../../shared/cleaners.js';
import { CleanerListSchema } from '../../shared/schemas/cleaners.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import type { ApiDeps } from '../deps.js';

export const cleanerRoutes =
  (_deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const cleaners = describeCleaners();
    app.get(
      '/cleaners',
      {
        schema: {
          summary: 'List the content cleaners and their options',
          description:
            'Each cleaner a cleaner_chain step can name, what it does, whether it is in the default chain, ' +
            'and each option with its type, default and meaning. Steps run in order, each on the output of ' +
            'the one before, e.g. [{"name": "readability"}, {"name": "markdown"}]. With the default chains of ' +
            "extraction and analysis (the Refyne product's fields; its cleaner options such as output or preset " +
            "are not offered: a 422 names them). refyne version: the product's ListCleanersOutputBody.",
          tags: ['cleaners'],
          response: { 200: CleanerListSchema, ...standardErrors },
        },
      },
      async () => ({
        cleaners,
        default_extraction_chain: DEFAULT_CLEANER_CHAIN,
        default_analysis_chain: ANALYSIS_CLEANER_CHAIN,
      }),
    );
  };
