// Cleaner chain steps as requests send them, and the cleaner list GET /api/v1/cleaners answers; both
// come from the one catalogue in shared/cleaners.ts.
import { z } from 'zod';
import { CLEANER_CATALOGUE, CLEANER_NAMES, type CleanerName } from '../cleaners.js';

const step = <N extends CleanerName>(name: N, id: string) =>
  z
    .object({
      name: z.literal(name),
      options: CLEANER_CATALOGUE[name].options.optional(),
    })
    .strict()
    .meta({ id, description: CLEANER_CATALOGUE[name].description });

export const CleanerStepSchema = z
  .discriminatedUnion(
    'name',
    [
      step('markdown', 'MarkdownCleanerStep'),
      step('readability', 'ReadabilityCleanerStep'),
      step('text', 'TextCleanerStep'),
      step('html', 'HtmlCleanerStep'),
      step('noop', 'NoopCleanerStep'),
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? `unknown cleaner; one of ${CLEANER_NAMES.join(', ')} (see GET /api/v1/cleaners)`
          : undefined,
    },
  )
  .meta({
    id: 'CleanerStep',
    description: 'One step of a cleaner chain: {name, options?}; see GET /api/v1/cleaners.',
  });
export type CleanerStepRequest = z.infer<typeof CleanerStepSchema>;

export const CleanerOptionInfoSchema = z.object({
  name: z.string(),
  type: z.string().meta({ description: 'string[], boolean, ...' }),
  default: z.unknown().meta({ description: 'Value used when the option is left out' }),
  description: z.string(),
});

export const CleanerInfoSchema = z
  .object({
    name: z.enum(CLEANER_NAMES),
    description: z.string(),
    default: z.boolean().meta({ description: 'Part of the default chain' }),
    options: z.array(CleanerOptionInfoSchema),
  })
  .meta({ id: 'Cleaner' });

const DefaultChainSchema = z.array(
  z.object({ name: z.enum(CLEANER_NAMES), options: z.record(z.string(), z.unknown()).optional() }),
);

export const CleanerListSchema = z
  .object({
    cleaners: z.array(CleanerInfoSchema),
    default_extraction_chain: DefaultChainSchema.meta({
      description:
        'The chain extract and crawl run when the request names none: [markdown], page chrome dropped; its ' +
        'include_links and include_images options follow the schema (on when a field or the prompt asks for ' +
        "links, URLs or images). The Refyne product's field.",
    }),
    default_analysis_chain: DefaultChainSchema.meta({
      description: "The chain POST /analyze reads pages with. The Refyne product's field.",
    }),
  })
  .meta({ id: 'CleanerList', description: 'The cleaners a cleaner_chain can name, in no particular order.' });
export type CleanerList = z.infer<typeof CleanerListSchema>;
