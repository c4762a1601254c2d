// The suggested schema: YAML text of a structured schema (name + fields) that /extract accepts as is, built
// from the model's field suggestions and checked with the same parser /extract uses; when the model's fields
// are unusable, built from the fields the structure showed. Pure.
import * as yaml from 'js-yaml';
import { typeName } from '../../../shared/schema-fields.js';
import { validateSchemaYaml } from '../../../shared/schema-input.js';
import { type CandidateField, fieldName } from './candidate-fields.js';
import type { PageType } from './page-type.js';

/** What the model may propose; anything may be missing or malformed. */
export interface ModelFields {
  schema_name?: unknown;
  fields?: unknown;
}

export interface SuggestedSchema {
  yaml: string;
  source: 'model' | 'structure';
}

const MAX_FIELDS = 20;
/** Pages that hold many records: their schema is a list of items. */
export const isListingType = (type: PageType) => type === 'listing' || type === 'search_results';

function definition(f: CandidateField): Record<string, unknown> {
  return {
    name: f.name,
    type: f.type,
    ...(f.description ? { description: f.description } : {}),
    ...(f.type === 'array' ? { items: 'string' } : {}),
  };
}

export function schemaYaml(name: string, fields: CandidateField[], pageType: PageType): string {
  const defs = fields.map(definition);
  const doc = isListingType(pageType)
    ? {
        name,
        description: `Every item of the ${pageType === 'search_results' ? 'results' : 'listing'} page.`,
        fields: [
          {
            name: 'items',
            type: 'array',
            description: 'One entry per item on the page, in page order.',
            items: { type: 'object', properties: defs },
          },
        ],
      }
    : { name, fields: defs };
  return yaml.dump(doc, { lineWidth: 120, noRefs: true });
}

/** The model's fields, cleaned: snake_case unique names, known types (objects without properties → text). */
export function modelFields(value: unknown): CandidateField[] {
  if (!Array.isArray(value)) return [];
  const out: CandidateField[] = [];
  for (const raw of value) {
    if (typeof raw !== 'object' || raw === null) continue;
    const r = raw as Record<string, unknown>;
    const name = typeof r.name === 'string' ? fieldName(r.name) : null;
    if (!name || name === 'items' || out.some((f) => f.name === name)) continue;
    const type = typeName(r.type) ?? 'string';
    out.push({
      name,
      type: type === 'object' ? 'string' : type,
      description: typeof r.description === 'string' ? r.description.slice(0, 300) : '',
    });
  }
  return out.slice(0, MAX_FIELDS);
}

export function suggestSchema(
  answer: ModelFields,
  structureFields: CandidateField[],
  pageType: PageType,
): SuggestedSchema {
  const name = (typeof answer.schema_name === 'string' && fieldName(answer.schema_name)) || pageType;
  const fromModel = modelFields(answer.fields);
  if (fromModel.length > 0) {
    const text = schemaYaml(name, fromModel, pageType);
    if (usable(text)) return { yaml: text, source: 'model' };
  }
  const fields = structureFields.length
    ? structureFields
    : [{ name: 'title', type: 'string' as const, description: 'the main heading' }];
  return { yaml: schemaYaml(name, fields, pageType), source: 'structure' };
}

function usable(text: string): boolean {
  try {
    validateSchemaYaml(text);
    return true;
  } catch {
    return false;
  }
}
