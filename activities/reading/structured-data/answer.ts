// Structured data first: what a page's structured data answers of the schema, what is left for
// the model (a smaller schema: the missing fields only), and how the two answers merge.
import type { NormalizedSchema } from '../../../shared/schema-input.js';
import type { DataSource, StructuredItem } from '../../../shared/structured-data.js';
import { type FieldMapping, mapFields } from './map-fields.js';

export interface StructuredPlan {
  mapping: FieldMapping;
  /** The schema the model is asked for: the missing fields; null when structured data answered all. */
  rest: NormalizedSchema | null;
}

/**
 * The plan for one page, or null when structured data plays no part: the switch is off, the schema is a
 * prompt (no fields to map), or no field was answered. Every field, required or optional, must be answered
 * for the page to skip the model: an optional field the data lacks may still be on the visible page.
 */
export function planFromStructuredData(
  schema: NormalizedSchema,
  items: StructuredItem[] | null | undefined,
  pageText: string,
): StructuredPlan | null {
  // Button labels alone (source `page`) confirm values but state none.
  if (
    !items?.some((i) => i.source !== 'page') ||
    schema.input_format === 'prompt' ||
    schema.fields.length === 0
  )
    return null;
  const mapping = mapFields(schema.fields, items, pageText);
  if (mapping.answered.length === 0) return null;
  return { mapping, rest: mapping.missing.length === 0 ? null : { ...schema, fields: mapping.missing } };
}

/** The structured values and the model's answer for the rest, in the schema's field order. */
export function mergeAnswer(schema: NormalizedSchema, mapping: FieldMapping, modelData: unknown): unknown {
  const model =
    typeof modelData === 'object' && modelData !== null ? (modelData as Record<string, unknown>) : {};
  const merged: Record<string, unknown> = {};
  for (const field of schema.fields) {
    if (field.name in mapping.data) merged[field.name] = mapping.data[field.name];
    else if (field.name in model) merged[field.name] = model[field.name];
  }
  return merged;
}

/** What a page's metadata says about where its data came from. */
export function sourceOf(plan: StructuredPlan | null): {
  data_source: DataSource;
  structured_fields: string[];
} {
  if (!plan) return { data_source: 'model', structured_fields: [] };
  return { data_source: plan.rest ? 'mixed' : 'structured_data', structured_fields: plan.mapping.answered };
}
