// The field syntax of schema input: {field: type} maps and structured field definitions, read
// into Field trees within the documented size limits. Every error names the path of the offending key.
import { CategorizedError } from './errors.js';

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface Field {
  name: string;
  type: FieldType;
  description?: string;
  required: boolean;
  items?: Field;
  properties?: Field[];
}

/** Size limits of one schema; past them the schema is a 422 (documented on SchemaInput). */
export const SCHEMA_LIMITS = { maxFields: 200, maxDepth: 5, maxBytes: 20 * 1024 } as const;

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
const ALIAS_LIST = Object.keys(ALIASES)
  .filter((a) => !(FIELD_TYPES as readonly string[]).includes(a))
  .join(', ');
export const MAP_TYPES_HELP =
  `valid types: ${FIELD_TYPES.join(', ')}, [type] or type[] for a list, a nested map for an object ` +
  `(aliases: ${ALIAS_LIST})`;
const DEFINITION_TYPES_HELP = `valid types: ${FIELD_TYPES.join(', ')} (aliases: ${ALIAS_LIST})`;
const DEFINITION_KEYS = ['type', 'description', 'required', 'items', 'properties', 'fields'];

/** An `invalid_input` error at `location` (a dot path inside the schema; '' for the schema itself). */
export function schemaError(location: string, reason: string, value?: unknown): CategorizedError {
  const message = location ? `${location}: ${reason}` : reason;
  return new CategorizedError('invalid_input', message, false, { location, reason, value });
}

export const joinPath = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function typeName(value: unknown): FieldType | null {
  return typeof value === 'string' ? (ALIASES[value.trim().toLowerCase()] ?? null) : null;
}

/** `string[]` → `string`; null when the value is not a valid list shorthand. */
function listShorthand(value: unknown): FieldType | null {
  if (typeof value !== 'string' || !value.trim().endsWith('[]')) return null;
  return typeName(value.trim().slice(0, -2));
}

/** A map written as a field definition ({type, description?, …}) rather than as nested fields. */
export function isDefinitionMap(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  return (
    keys.every((k) => DEFINITION_KEYS.includes(k)) &&
    (typeof value.type === 'string' || isListOrMap(value.properties) || isListOrMap(value.fields))
  );
}
const isListOrMap = (v: unknown) => Array.isArray(v) || isPlainObject(v);

/** Something a user writes as a type in a map: used to tell a YAML schema from YAML-shaped prose. */
export function isTypeLike(value: unknown, seen = new WeakSet<object>(), depth = 1): boolean {
  if (typeName(value) || listShorthand(value)) return true;
  // YAML aliases can make a small text a huge graph: look at each node once, and not below the depth limit.
  if (typeof value !== 'object' || value === null || seen.has(value)) return false;
  if (depth > SCHEMA_LIMITS.maxDepth) return false;
  seen.add(value);
  if (Array.isArray(value)) return value.length === 1 && isTypeLike(value[0], seen, depth + 1);
  if (!isPlainObject(value)) return false;
  return isDefinitionMap(value) || Object.values(value).some((v) => isTypeLike(v, seen, depth + 1));
}

/** Counts fields and checks nesting while a schema is read. */
export class FieldBudget {
  private count = 0;
  enter(path: string, depth: number, named: boolean): void {
    if (depth > SCHEMA_LIMITS.maxDepth)
      throw schemaError(path, `nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`);
    if (named && ++this.count > SCHEMA_LIMITS.maxFields)
      throw schemaError(path, `the schema has more than ${SCHEMA_LIMITS.maxFields} fields`);
  }
}

/** A {field: type} map (also the map form of structured `fields` and `properties`). */
export function fieldsFromMap(
  map: Record<string, unknown>,
  path: string,
  depth: number,
  budget: FieldBudget,
): Field[] {
  const required = requiredListOf(map);
  const fields = Object.entries(map)
    .filter(([key]) => !(required && key === 'required'))
    .map(([key, spec]) => {
      const at = joinPath(path, key);
      if (!key.trim()) throw schemaError(at, 'a field name must not be empty');
      return fieldFromValue(key, spec, at, depth, budget, true);
    });
  return required ? applyRequired(fields, required, joinPath(path, 'required')) : fields;
}

/** `required: [a, b]` in a map is a JSON-Schema-style list when it names a sibling key; else a field. */
function requiredListOf(map: Record<string, unknown>): string[] | null {
  const list = map.required;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) return null;
  return list.some((name) => name !== 'required' && name in map) ? list : null;
}

/** Marks the named fields required; every name must be one of `fields`. */
export function applyRequired(fields: Field[], list: unknown, path: string): Field[] {
  if (!Array.isArray(list)) throw schemaError(path, 'required must be a list of field names', list);
  const names = new Set(fields.map((f) => f.name));
  list.forEach((name, i) => {
    if (typeof name !== 'string' || !names.has(name))
      throw schemaError(joinPath(path, i), `names no field of this object`, name);
  });
  return fields.map((f) => (list.includes(f.name) ? { ...f, required: true } : f));
}

/** One value in a map: a type name, `type[]`, `[type]`, `[]`, a nested map, `{}` or a field definition. */
function fieldFromValue(
  name: string,
  spec: unknown,
  path: string,
  depth: number,
  budget: FieldBudget,
  named: boolean,
): Field {
  budget.enter(path, depth, named);
  const simple = typeName(spec);
  if (simple) return { name, type: simple, required: false };
  const listOf = listShorthand(spec);
  if (listOf)
    return { name, type: 'array', required: false, items: { name: 'item', type: listOf, required: false } };
  if (Array.isArray(spec)) {
    if (spec.length === 0) return { name, type: 'array', required: false };
    if (spec.length > 1)
      throw schemaError(path, 'a list type holds exactly one item type, e.g. [string] or [{name: string}]');
    const items = fieldFromValue('item', spec[0], joinPath(path, 0), depth + 1, budget, false);
    return { name, type: 'array', required: false, items };
  }
  if (isPlainObject(spec)) {
    if (Object.keys(spec).length === 0) return { name, type: 'object', required: false };
    if (isDefinitionMap(spec)) return fieldFromDefinition({ ...spec, name }, path, depth, budget, false);
    return {
      name,
      type: 'object',
      required: false,
      properties: fieldsFromMap(spec, path, depth + 1, budget),
    };
  }
  throw schemaError(path, `unknown type ${JSON.stringify(spec)}; ${MAP_TYPES_HELP}`, spec);
}

/** The list form of structured `fields`/`properties`: [{name, type, …}], names unique. */
export function fieldsFromList(list: unknown[], path: string, depth: number, budget: FieldBudget): Field[] {
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const at = joinPath(path, i);
    if (!isPlainObject(raw))
      throw schemaError(at, 'a field definition must be an object like {name, type}', raw);
    const field = fieldFromDefinition(raw, at, depth, budget, true);
    if (seen.has(field.name)) throw schemaError(joinPath(at, 'name'), 'duplicate field name', field.name);
    seen.add(field.name);
    return field;
  });
}

/** Reads `properties`/`fields` or `items` given as either form. */
function fieldsFromListOrMap(raw: unknown, path: string, depth: number, budget: FieldBudget): Field[] {
  if (Array.isArray(raw)) return fieldsFromList(raw, path, depth, budget);
  if (isPlainObject(raw)) return fieldsFromMap(raw, path, depth, budget);
  throw schemaError(path, 'must be a list of field definitions or a map of field names to types', raw);
}

/** {name?, type?, description?, required?, items?, properties?}; a missing type is inferred. */
function fieldFromDefinition(
  raw: Record<string, unknown>,
  path: string,
  depth: number,
  budget: FieldBudget,
  listed: boolean,
): Field {
  if (listed) budget.enter(path, depth, true);
  for (const key of Object.keys(raw)) {
    if (key !== 'name' && !DEFINITION_KEYS.includes(key))
      throw schemaError(joinPath(path, key), `unknown key; a field has name, ${DEFINITION_KEYS.join(', ')}`);
  }
  if (typeof raw.name !== 'string' || !raw.name.trim())
    throw schemaError(joinPath(path, 'name'), 'a field needs a non-empty name', raw.name);
  if (raw.properties !== undefined && raw.fields !== undefined)
    throw schemaError(joinPath(path, 'fields'), 'give properties or fields, not both');
  const propsKey = raw.properties !== undefined ? 'properties' : 'fields';
  const props = raw[propsKey];
  const type = definitionType(raw, props, path);
  const field: Field = { name: raw.name, type, required: false };
  if (raw.description !== undefined) {
    if (typeof raw.description !== 'string')
      throw schemaError(joinPath(path, 'description'), 'description must be text', raw.description);
    field.description = raw.description;
  }
  if (type === 'array') field.items = itemsOf(raw.items, joinPath(path, 'items'), depth, budget);
  else if (raw.items !== undefined)
    throw schemaError(joinPath(path, 'items'), 'items only applies to array fields');
  if (type === 'object') {
    if (props === undefined) throw schemaError(path, 'an object field needs properties');
    const at = joinPath(path, propsKey);
    field.properties = fieldsFromListOrMap(props, at, depth + 1, budget);
    if (field.properties.length === 0) throw schemaError(at, 'an object field needs properties');
  } else if (props !== undefined) {
    throw schemaError(joinPath(path, propsKey), `${propsKey} only applies to object fields`);
  }
  return applyRequiredKey(field, raw.required, joinPath(path, 'required'));
}

function definitionType(raw: Record<string, unknown>, props: unknown, path: string): FieldType {
  if (raw.type === undefined)
    return props !== undefined ? 'object' : raw.items !== undefined ? 'array' : 'string';
  const type = typeName(raw.type);
  if (!type)
    throw schemaError(
      joinPath(path, 'type'),
      `unknown type ${JSON.stringify(raw.type)}; ${DEFINITION_TYPES_HELP}`,
      raw.type,
    );
  return type;
}

/** `required: true|false` for the field itself, or on an object a list of its required properties. */
function applyRequiredKey(field: Field, required: unknown, path: string): Field {
  if (required === undefined || typeof required === 'boolean')
    return { ...field, required: required === true };
  if (Array.isArray(required) && field.properties)
    return { ...field, properties: applyRequired(field.properties, required, path) };
  throw schemaError(
    path,
    'required must be true, false, or on an object field a list of its fields',
    required,
  );
}

/** `items` of a structured array field: a type name, `[type]`, a definition or a nested map; strings by default. */
function itemsOf(raw: unknown, path: string, depth: number, budget: FieldBudget): Field {
  if (raw === undefined) return { name: 'item', type: 'string', required: false };
  if (typeof raw === 'string' && !typeName(raw) && !listShorthand(raw))
    throw schemaError(path, `unknown type ${JSON.stringify(raw)}; ${DEFINITION_TYPES_HELP}`, raw);
  const item = fieldFromValue('item', raw, path, depth + 1, budget, false);
  // An item is always present in its list; `required` there means nothing.
  return { ...item, required: false };
}
