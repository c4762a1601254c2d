// Whether a suggested schema, applied to the analysed page, yielded anything: items on a listing, values on a
// single item. When it did not, what went wrong is told to the model (the fields that came out empty and what
// the page's structure shows), and the response says which schema was kept and why. Pure.
import type { NormalizedSchema } from '../../shared/schema-input.js';
import type { SampleValue } from '../reading/page-structure/candidate-fields.js';
import type { PageStructure } from '../reading/page-structure/page-structure.js';

/** A schema's record fields: the item properties of a listing schema (one `items` array), else its fields. */
export interface RecordShape {
  listing: boolean;
  fields: string[];
}

export interface SampleCheck {
  /** Records holding at least one value: items on a listing, 0 or 1 on a single item. */
  filled: number;
  /** Fields without a value in any record. */
  emptyFields: string[];
}

export function recordShape(schema: NormalizedSchema): RecordShape {
  const [only] = schema.fields;
  const props = only?.items?.properties;
  if (schema.fields.length === 1 && only?.name === 'items' && only.type === 'array' && props)
    return { listing: true, fields: props.map((p) => p.name) };
  return { listing: false, fields: schema.fields.map((f) => f.name) };
}

/** null, '', blanks, [] and objects of nothing are no value; numbers and booleans are. */
export function hasValue(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.some(hasValue);
  if (typeof value === 'object') return Object.values(value).some(hasValue);
  return true;
}

const asRecord = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The records of sample data shaped by `shape`: its items on a listing, itself on a single item. */
export function sampleRecords(data: unknown, shape: RecordShape): Record<string, unknown>[] {
  if (!shape.listing) return [asRecord(data)];
  const items = asRecord(data).items;
  return Array.isArray(items) ? items.map(asRecord) : [];
}

export function checkSample(data: unknown, shape: RecordShape): SampleCheck {
  const records = sampleRecords(data, shape);
  return {
    filled: records.filter((r) => shape.fields.some((f) => hasValue(r[f]))).length,
    emptyFields: shape.fields.filter((f) => !records.some((r) => hasValue(r[f]))),
  };
}

/** The structure's records as sample data of a schema of `shape` (items, or the one record). */
export function structureSample(records: Record<string, SampleValue>[], shape: RecordShape): unknown {
  const pick = (r: Record<string, SampleValue>) =>
    Object.fromEntries(shape.fields.map((f) => [f, r[f] ?? null]));
  return shape.listing ? { items: records.map(pick) } : pick(records[0] ?? {});
}

/** What the page shows, in one sentence: the main repeated block, else its title. */
function pageShows(structure: PageStructure): string {
  if (structure.itemSelector)
    return `The page shows ${structure.items} repeated items matching \`${structure.itemSelector}\``;
  return `The page shows one item${structure.title ? `, titled "${structure.title}"` : ''}`;
}

/**
 * Put before the evidence when the model is asked again. Worded so that no line reads as an answer to the
 * analysis schema's own questions (no "Fields:" or "Page type:" labels).
 */
export function retryFeedback(shape: RecordShape, structure: PageStructure, reason: string): string {
  const seen = structure.fields.map((f) => `- ${f.name}: ${f.description}`);
  return [
    '# Your previous suggestion did not work on this page',
    '',
    `${reason} The names that came out empty: ${shape.fields.join(', ') || '(none were suggested)'}.`,
    `${pageShows(structure)}. Suggest the record's parts again so that they match what the page really holds,`,
    'named after what they contain. These parts were measured in the page structure, with their selectors —',
    '',
    ...(seen.length ? seen : ['- (none measured)']),
    '',
  ].join('\n');
}

/** Why the model is asked again: its schema yielded nothing (null: it named no usable fields). */
export function emptyReason(shape: RecordShape | null): string {
  if (!shape) return 'Your answer held no usable field names.';
  return shape.listing
    ? 'Applied to this page, your schema extracted 0 items.'
    : 'Applied to this page, your schema extracted no value for any field.';
}

export function yieldNote({ check, shape }: { check: SampleCheck; shape: RecordShape }): string {
  const empty = check.emptyFields.length ? ` (empty: ${check.emptyFields.join(', ')})` : '';
  const filled = shape.fields.length - check.emptyFields.length;
  return shape.listing
    ? `${check.filled} items extracted${empty}`
    : `${filled} of ${shape.fields.length} fields have a value${empty}`;
}
