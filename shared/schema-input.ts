// Schema input: a structured schema (name + fields), a {field: type} map, or a free-form prompt,
// detected in that order and normalised into fields. The rules are documented on
// SchemaInputSchema (shared/schemas/extract.ts); the field syntax itself lives in schema-fields.ts.
import * as yaml from 'js-yaml';
import {
  applyRequired,
  type Field,
  FieldBudget,
  type FieldType,
  fieldsFromList,
  fieldsFromMap,
  isPlainObject,
  isTypeLike,
  SCHEMA_LIMITS,
  schemaError,
  typeName,
} from './schema-fields.js';

export { FIELD_TYPES, SCHEMA_LIMITS } from './schema-fields.js';
export type { Field, FieldType };
export const INPUT_FORMATS = ['fields', 'structured', 'prompt'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface NormalizedSchema {
  input_format: InputFormat;
  name: string;
  description?: string;
  fields: Field[];
  prompt?: string;
}

const STRUCTURED_KEYS = ['name', 'description', 'fields', 'required'];

/**
 * Parses the caller's schema. Throws an `invalid_input` CategorizedError whose `details.location` is the
 * dot path of the problem inside the schema ('' for the schema as a whole) and `details.reason` says why.
 */
export function normalizeSchema(input: unknown): NormalizedSchema {
  checkSize(input);
  if (typeof input === 'string') {
    const text = input.trim();
    if (!text) throw schemaError('', 'the schema is empty');
    const parsed = schemaInText(text);
    return parsed
      ? fromObject(parsed)
      : { input_format: 'prompt', name: 'extraction', fields: [], prompt: text };
  }
  if (isPlainObject(input)) return fromObject(input);
  throw schemaError('', 'the schema must be text or an object', input);
}

/**
 * The parser for stored schemas (`schema_yaml`): YAML (or JSON) text holding a structured schema or a
 * {field: type} map. Unlike `normalizeSchema` it never falls back to a prompt: a YAML syntax error or text
 * that is not a mapping throws the same `invalid_input` error.
 */
export function validateSchemaYaml(text: string): NormalizedSchema {
  checkSize(text);
  if (!text.trim()) throw schemaError('', 'the schema is empty');
  const value = loadYaml(text);
  if (!isPlainObject(value))
    throw schemaError('', 'the schema must be a YAML mapping: name + fields, or a {field: type} map');
  return fromObject(value);
}

function checkSize(input: unknown): void {
  let text: string;
  try {
    text = typeof input === 'string' ? input : JSON.stringify(input ?? null);
  } catch {
    throw schemaError('', `the schema is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`);
  }
  if (new TextEncoder().encode(text).length > SCHEMA_LIMITS.maxBytes)
    throw schemaError('', `the schema is larger than ${SCHEMA_LIMITS.maxBytes / 1024} kB`);
}

function loadYaml(text: string): unknown {
  try {
    return yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch (err) {
    if (!(err instanceof yaml.YAMLException)) throw err;
    const at = err.mark ? ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}` : '';
    throw schemaError('', `YAML syntax error${at}: ${err.reason}`);
  }
}

/**
 * The object a text schema holds, or null when the text is a prompt. JSON object text is always a schema;
 * YAML is one only when it looks like one (a type name among its values, or name + fields), so prose such
 * as "Extract: the title" stays a prompt. Broken JSON/YAML that clearly meant to be a schema is a 422.
 */
function schemaInText(text: string): Record<string, unknown> | null {
  if (text.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      return isPlainObject(value) ? value : null;
    } catch (err) {
      try {
        const value = yaml.load(text, { schema: yaml.JSON_SCHEMA });
        if (isPlainObject(value)) return value;
      } catch {
        // neither JSON nor YAML flow style
      }
      if (/^\{\s*["']?[\w -]+["']?\s*:/.test(text))
        throw schemaError('', `the schema looks like JSON but does not parse: ${(err as Error).message}`);
      return null;
    }
  }
  if (text.startsWith('[')) return null; // a list is not a schema form: read as a prompt
  let value: unknown;
  try {
    value = yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch {
    if (looksLikeYaml(text)) loadYaml(text); // throws the located YAML error
    return null;
  }
  if (!isPlainObject(value)) return null;
  const seen = new WeakSet<object>();
  const schemaLike =
    ('name' in value && 'fields' in value) || Object.values(value).some((v) => isTypeLike(v, seen));
  return schemaLike ? value : null;
}

/** Several lines, each a `key:` entry, a list item or a comment: YAML meant as a schema, not prose. */
function looksLikeYaml(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  return lines.length >= 2 && lines.every((l) => /^\s*(#|-(\s|$)|[\w"'][^:]*:(\s|$))/.test(l));
}

/** Structured when `fields` holds field definitions (a map, or a list that is not a `[type]` list). */
function isStructured(value: Record<string, unknown>): boolean {
  if (!('name' in value) || !('fields' in value)) return false;
  const { fields } = value;
  if (isPlainObject(fields)) return true;
  if (!Array.isArray(fields)) return false;
  const [only] = fields;
  const listType =
    fields.length === 1 && (isPlainObject(only) ? !('name' in only) && !('type' in only) : isTypeLike(only));
  return !listType;
}

function fromObject(value: Record<string, unknown>): NormalizedSchema {
  if (isStructured(value)) return fromStructured(value);
  if (Object.keys(value).length === 0) throw schemaError('', 'the schema names no field');
  try {
    return {
      input_format: 'fields',
      name: 'extraction',
      fields: fieldsFromMap(value, '', 1, new FieldBudget()),
    };
  } catch (err) {
    throw withStructuredHint(value, err);
  }
}

/** {name: 'title'} or {type: …}: a structured field, not an object of a {field: type} map. */
const isFieldDefinition = (f: unknown) =>
  isPlainObject(f) && ('type' in f || (typeof f.name === 'string' && typeName(f.name) === null));

/** Errors of a map that was probably meant as a structured schema say so. */
function withStructuredHint(value: Record<string, unknown>, err: unknown): unknown {
  if (!('fields' in value)) return err;
  if (!('name' in value))
    return Array.isArray(value.fields) && value.fields.some(isFieldDefinition)
      ? schemaError('name', 'a structured schema needs a name next to its fields')
      : err;
  // A name that is no type cannot be a {field: type} map entry: the caller meant a structured schema.
  if (!isTypeLike(value.name))
    return schemaError(
      'fields',
      'must be a list of field definitions or a map of field names to types',
      value.fields,
    );
  const { location, reason, value: bad } = (err as { details?: Record<string, unknown> }).details ?? {};
  if (typeof location !== 'string' || typeof reason !== 'string') return err;
  const hint =
    ' (name + fields is a structured schema only when fields is a list or map of field definitions)';
  return schemaError(location, reason + hint, bad);
}

function fromStructured(value: Record<string, unknown>): NormalizedSchema {
  for (const key of Object.keys(value)) {
    if (!STRUCTURED_KEYS.includes(key))
      throw schemaError(key, `unknown key; a structured schema has ${STRUCTURED_KEYS.join(', ')}`);
  }
  if (typeof value.name !== 'string' || !value.name.trim())
    throw schemaError('name', 'must be a non-empty string', value.name);
  if (value.description !== undefined && typeof value.description !== 'string')
    throw schemaError('description', 'must be text', value.description);
  const budget = new FieldBudget();
  let fields = Array.isArray(value.fields)
    ? fieldsFromList(value.fields, 'fields', 1, budget)
    : fieldsFromMap(value.fields as Record<string, unknown>, 'fields', 1, budget);
  // Like {}, a schema without fields is unusable as a whole (reported at the schema itself).
  if (fields.length === 0) throw schemaError('', 'the schema names no field: fields is empty');
  if (value.required !== undefined) fields = applyRequired(fields, value.required, 'required');
  const schema: NormalizedSchema = { input_format: 'structured', name: value.name, fields };
  if (value.description !== undefined) schema.description = value.description;
  return schema;
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
