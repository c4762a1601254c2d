// Requests built from the Refyne product's published models, understood as meant (every API version):
// - an explicit null for an optional field that does not take null means the field is absent (pydantic models
//   dump unset fields as null), at any depth the body schema describes: nested objects, list items, union
//   members;
// - the camelCase names one official client sends for three top-level fields (CAMEL_CASE_ALIASES) mean their
//   snake_case fields; given together with the snake_case name, the camelCase one stays an unknown field (422).
// Anything else unknown is still refused: the body schemas are strict. The OpenAPI document says the same
// (openapi-document.ts marks those optional fields nullable), so what it promises is what runs.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

export const CAMEL_CASE_ALIASES: Readonly<Record<string, string>> = {
  fetchMode: 'fetch_mode',
  llmConfig: 'llm_config',
  webhookUrl: 'webhook_url',
};

type AnySchema = z.core.$ZodType;
type Json = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema under wrappers that do not change which JSON it describes (optional, default, pipes' input…). */
function unwrap(schema: AnySchema, steps = 20): AnySchema {
  let current = schema;
  for (let i = 0; i < steps; i++) {
    const def = current._zod.def as unknown as {
      type: string;
      innerType?: AnySchema;
      in?: AnySchema;
      out?: AnySchema;
    };
    if (def.innerType) current = def.innerType;
    // A transform's input is its pipe's input; a preprocess (a transform first) reads what its output reads.
    else if (def.type === 'pipe' && def.in && (def.in._zod.def as { type: string }).type !== 'transform')
      current = def.in;
    else if (def.type === 'pipe' && def.out) current = def.out;
    else return current;
  }
  return current;
}

/** The object schemas a value of `schema` may be read by: the object itself, or a union's object members. */
function objectShapes(schema: AnySchema): Record<string, AnySchema>[] {
  const inner = unwrap(schema);
  const def = inner._zod.def as unknown as {
    type: string;
    shape?: Record<string, AnySchema>;
    options?: AnySchema[];
  };
  if (def.type === 'object' && def.shape) return [def.shape];
  if (def.type === 'union' && def.options) return def.options.flatMap(objectShapes);
  return [];
}

function elementOf(schema: AnySchema): AnySchema | null {
  const def = unwrap(schema)._zod.def as unknown as { type: string; element?: AnySchema };
  return def.type === 'array' && def.element ? def.element : null;
}

/** A field that may be left out and refuses null: null there can only mean "not given". */
const nullMeansAbsent = (field: AnySchema) =>
  !(field as z.ZodType).safeParse(null).success && (field as z.ZodType).safeParse(undefined).success;

/**
 * Fields whose presence the schema's document rules test (`oneOf: [{required: [schema]}, …]`, `not: {required}`):
 * a null there is present, so it is left for validation to refuse, as the document says.
 */
function presenceTested(schema: AnySchema): Set<string> {
  const names = new Set<string>();
  let current: AnySchema | undefined = schema;
  for (let i = 0; current && i < 20; i++) {
    const meta = z.globalRegistry.get(current as z.ZodType) as Record<string, unknown> | undefined;
    const rules = [meta?.oneOf, meta?.anyOf, meta?.not ? [meta.not] : undefined].flat();
    for (const rule of rules)
      for (const name of (rule as { required?: string[] })?.required ?? []) names.add(name);
    const next = unwrap(current, 1);
    current = next === current ? undefined : next;
  }
  return names;
}

/** Drops the nulls that mean "absent", in place, wherever the schema describes the value. */
export function dropAbsentNulls(schema: AnySchema, value: unknown): void {
  if (Array.isArray(value)) {
    const element = elementOf(schema);
    if (element) for (const item of value) dropAbsentNulls(element, item);
    return;
  }
  if (!isPlainObject(value)) return;
  const shapes = objectShapes(schema);
  if (shapes.length === 0) return;
  const tested = presenceTested(schema);
  for (const key of Object.keys(value)) {
    const fields = shapes.flatMap((shape) => (shape[key] ? [shape[key]] : []));
    if (fields.length === 0) continue;
    if (value[key] === null) {
      if (!tested.has(key) && fields.every(nullMeansAbsent)) delete value[key];
      continue;
    }
    for (const field of fields) dropAbsentNulls(field, value[key]);
  }
}

/** Renames the camelCase aliases the body's schema knows by their snake_case name (top level only). */
export function renameAliases(schema: AnySchema, body: unknown): void {
  if (!isPlainObject(body)) return;
  const shapes = objectShapes(schema);
  for (const [alias, name] of Object.entries(CAMEL_CASE_ALIASES)) {
    if (!(alias in body) || name in body || !shapes.some((shape) => name in shape)) continue;
    body[name] = body[alias];
    delete body[alias];
  }
}

/** Before validation: every route's JSON body, read by its own body schema. */
export function registerRequestLeniency(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    const schema = (request.routeOptions.schema as { body?: AnySchema } | undefined)?.body;
    if (!schema || !isPlainObject(request.body)) return;
    renameAliases(schema, request.body);
    dropAbsentNulls(schema, request.body);
  });
}
