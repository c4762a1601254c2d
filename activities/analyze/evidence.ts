// What the model is asked for an analysis: a schema of the answer (page type, summary, record name and
// fields) and the page as evidence — the facts measured by parsing it first, then its cleaned content. Pure.

import type { NormalizedSchema } from '../../shared/schema-input.js';
import { PAGE_TYPES } from '../../shared/schemas/analyze.js';
import type { PageStructure } from '../reading/page-structure/page-structure.js';

/** The model's answer: every field may be null, the structure's evidence is the fallback for each. */
export const ANALYSIS_SCHEMA: NormalizedSchema = {
  input_format: 'structured',
  name: 'page_analysis',
  description:
    'An analysis of this web page for someone who will scrape it. The content starts with facts measured by ' +
    'parsing the page (counts, selectors, link patterns, fields seen): rely on them, and use the page text ' +
    'to name and describe things.',
  fields: [
    {
      name: 'page_type',
      type: 'string',
      required: false,
      description: `Exactly one of: ${PAGE_TYPES.join(', ')}. Confirm the type the structure suggests or choose a better one from this list.`,
    },
    {
      name: 'site_summary',
      type: 'string',
      required: false,
      description: 'Two or three sentences: what the site is and what this page shows.',
    },
    {
      name: 'schema_name',
      type: 'string',
      required: false,
      description:
        'A snake_case name for one record of the data on this page, e.g. product, article, job_posting.',
    },
    {
      name: 'fields',
      type: 'array',
      required: false,
      description:
        'The fields of one record worth extracting from this page and pages like it: refine the fields seen ' +
        'in the structure (better names, descriptions, types), drop useless ones, add missing ones.',
      items: {
        name: 'field',
        type: 'object',
        required: true,
        properties: [
          { name: 'name', type: 'string', required: true, description: 'snake_case field name' },
          {
            name: 'type',
            type: 'string',
            required: true,
            description: 'string, number, integer, boolean or array',
          },
          { name: 'description', type: 'string', required: false, description: 'what the field holds' },
        ],
      },
    },
  ],
};

/** How much of the cleaned page the evidence carries: the structure matters more than the full text. */
const MAX_PAGE_CHARS = 20_000;

export function evidenceDocument(structure: PageStructure, cleaned: string): string {
  const lines = [
    '# Facts measured by parsing the page',
    '',
    `- Title: ${structure.title || '(none)'}`,
    `- Page type: ${structure.guess.type}`,
    `- Why: ${structure.guess.reason}`,
    '',
    '## Elements counted on the page',
    '',
    ...structure.elements.map((e) => `- ${e.type} "${e.name}" ×${e.count} — ${e.description}`),
    '',
    '## Same-site link patterns',
    '',
    ...structure.patterns.map((p) => `- ${p.pattern} — ${p.description}`),
    '',
    '## Fields seen in the page structure',
    '',
    ...structure.fields.map((f) => `- name: ${f.name}; type: ${f.type}; description: ${f.description}`),
    '',
    '# Page content',
    '',
    cleaned.slice(0, MAX_PAGE_CHARS),
  ];
  return lines.join('\n');
}
