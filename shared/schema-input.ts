// Schema input (spec 2.1): a {field: type} map, a structured schema (YAML/JSON with name + fields), or a
// free-form prompt. Detected in that order of precedence (decisions.md) and normalised into fields.
import * as yaml from 'js-yaml';
import { CategorizedError } from './errors.js';

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const INPUT_FORMATS = ['fields', 'structured', 'prompt'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface Field {
  name: string;
  type: FieldType;
  description?: string;
  required: boolean;
  items?: Field;
  properties?: Field[];
}

export interface NormalizedSchema {
  input_format: InputFormat;
  name: string;
  description?: string;
  fields: Field[];
  prompt?: string;
}

const ALIASES: Record<string, FieldType> = {
  string: 'string',
  str: 'string',
  text: 'string',
  date: 'string',
  datetime: 'string',
  url: 'string',
  email: 'string',
  number: 'number',
  float: 'number',
  double: 'number',
  decimal: 'number',
  integer: 'integer',
  int: 'integer',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  object: 'object',
};

const invalid = (msg: string) => new CategorizedError('invalid_input', msg);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses the caller's schema. Throws `invalid_input` when it parses but names no usable field. */
export function normalizeSchema(input: unknown): NormalizedSchema {
  const value = typeof input === 'string' ? parseText(input) : input;
  if (isPlainObject(value) && 'name' in value && 'fields' in value) return fromStructured(value);
  if (isPlainObject(value) && isFieldsMap(value)) {
    const fields = fieldsFromMap(value, 'schema');
    if (fields.length === 0) throw invalid('the schema names no field');
    return { input_format: 'fields', name: 'extraction', fields };
  }
  if (isPlainObject(value) && Object.keys(value).length === 0) throw invalid('the schema names no field');
  const prompt = typeof input === 'string' ? input.trim() : JSON.stringify(input);
  if (!prompt) throw invalid('the schema is empty');
  return { input_format: 'prompt', name: 'extraction', fields: [], prompt };
}

function parseText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // not JSON: maybe YAML flow style, else a prompt
    }
  }
  try {
    const parsed = yaml.load(trimmed, { schema: yaml.JSON_SCHEMA });
    return isPlainObject(parsed) ? parsed : text;
  } catch {
    return text;
  }
}

function typeName(value: unknown): FieldType | null {
  return typeof value === 'string' ? (ALIASES[value.trim().toLowerCase()] ?? null) : null;
}

/** A value in a {field: type} map: a type name, a nested map, or a one-element list `[type]`. */
function isTypeSpec(value: unknown): boolean {
  if (typeName(value)) return true;
  if (typeof value === 'string' && /^\w+\[\]$/.test(value.trim()))
    return typeName(value.trim().slice(0, -2)) !== null;
  if (Array.isArray(value)) return value.length === 1 && isTypeSpec(value[0]);
  return isPlainObject(value) && Object.keys(value).length > 0 && isFieldsMap(value);
}

function isFieldsMap(value: Record<string, unknown>): boolean {
  const entries = Object.values(value);
  return entries.length > 0 && entries.every(isTypeSpec);
}

function fieldsFromMap(map: Record<string, unknown>, path: string): Field[] {
  return Object.entries(map).map(([name, spec]) => fieldFromSpec(name, spec, `${path}.${name}`));
}

function fieldFromSpec(name: string, spec: unknown, path: string): Field {
  const simple = typeName(spec);
  if (simple) return { name, type: simple, required: false };
  if (typeof spec === 'string' && spec.trim().endsWith('[]')) {
    return {
      name,
      type: 'array',
      required: false,
      items: fieldFromSpec('item', spec.trim().slice(0, -2), path),
    };
  }
  if (Array.isArray(spec))
    return { name, type: 'array', required: false, items: fieldFromSpec('item', spec[0], path) };
  if (isPlainObject(spec))
    return { name, type: 'object', required: false, properties: fieldsFromMap(spec, path) };
  throw invalid(`${path}: unknown type ${JSON.stringify(spec)}`);
}

function fromStructured(value: Record<string, unknown>): NormalizedSchema {
  if (typeof value.name !== 'string' || !value.name.trim())
    throw invalid('schema.name must be a non-empty string');
  const fields = structuredFields(value.fields, 'schema.fields');
  if (fields.length === 0) throw invalid('schema.fields names no field');
  const description = typeof value.description === 'string' ? value.description : undefined;
  return { input_format: 'structured', name: value.name, description, fields };
}

function structuredFields(raw: unknown, path: string): Field[] {
  if (Array.isArray(raw)) return raw.map((f, i) => structuredField(f, `${path}[${i}]`));
  if (isPlainObject(raw)) {
    return Object.entries(raw).map(([name, f]) =>
      isPlainObject(f)
        ? structuredField({ name, ...f }, `${path}.${name}`)
        : fieldFromSpec(name, f, `${path}.${name}`),
    );
  }
  throw invalid(`${path} must be a list of fields or a map of field names`);
}

function structuredField(raw: unknown, path: string): Field {
  if (!isPlainObject(raw)) throw invalid(`${path} must be an object with name and type`);
  if (typeof raw.name !== 'string' || !raw.name.trim())
    throw invalid(`${path}.name must be a non-empty string`);
  const type = raw.type === undefined ? 'string' : typeName(raw.type);
  if (!type)
    throw invalid(`${path}.type: unknown type ${JSON.stringify(raw.type)} (use ${FIELD_TYPES.join(', ')})`);
  const field: Field = { name: raw.name, type, required: raw.required === true };
  if (typeof raw.description === 'string') field.description = raw.description;
  if (type === 'array') {
    if (isPlainObject(raw.items)) {
      const items = raw.items;
      field.items =
        'properties' in items || 'fields' in items
          ? {
              name: 'item',
              type: 'object',
              required: false,
              properties: structuredFields(items.properties ?? items.fields, `${path}.items.properties`),
            }
          : structuredField({ name: 'item', ...items }, `${path}.items`);
    } else {
      // A list without `items` holds strings; a misspelt item type is an error, not a silent string.
      const itemType = raw.items === undefined ? 'string' : typeName(raw.items);
      if (!itemType)
        throw invalid(
          `${path}.items: unknown type ${JSON.stringify(raw.items)} (use ${FIELD_TYPES.join(', ')})`,
        );
      field.items = { name: 'item', type: itemType, required: false };
    }
  }
  if (type === 'object') {
    const props = raw.properties ?? raw.fields;
    if (props === undefined) throw invalid(`${path}: an object field needs properties`);
    field.properties = structuredFields(props, `${path}.properties`);
  }
  return field;
}

type JsonSchema = Record<string, unknown>;

/** JSON Schema of the wanted output: what the model is asked for and what its answer is checked against. */
export function toJsonSchema(schema: NormalizedSchema): JsonSchema {
  if (schema.input_format === 'prompt') return { type: 'object' };
  return objectSchema(schema.fields);
}

function objectSchema(fields: Field[]): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    required: fields.filter((f) => f.required).map((f) => f.name),
    additionalProperties: false,
  };
}

function fieldSchema(field: Field): JsonSchema {
  // A bare `object` (no properties named) is any object, not one that must stay empty.
  const base: JsonSchema =
    field.type === 'object'
      ? field.properties?.length
        ? objectSchema(field.properties)
        : { type: 'object' }
      : field.type === 'array'
        ? { type: 'array', items: field.items ? fieldSchema({ ...field.items, required: true }) : {} }
        : { type: field.type };
  if (field.description) base.description = field.description;
  // Optional fields may be null when the page does not show them.
  if (!field.required) base.type = [base.type as string, 'null'];
  return base;
}
