// Compiled JSON Schema validators for model answers, kept in a cache bounded by bytes: a crawl validates every
// page against one schema, but a stream of distinct tenant schemas must not grow the worker. Each schema gets
// its own Ajv instance, dropped with its validator: one shared Ajv keeps every schema and compiled function
// it ever saw in its code-generation scope (removeSchema clears its schema map, not that scope).
import { Ajv, type ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';

/** What the cached validators are estimated to hold, at most (validatorBytes). */
export const VALIDATOR_CACHE_MAX_BYTES = 16 * 1024 * 1024;

const validators = new LRUCache<string, ValidateFunction>({
  maxSize: VALIDATOR_CACHE_MAX_BYTES,
  sizeCalculation: (_validate, key) => validatorBytes(key),
});

/**
 * An upper estimate of a compiled validator's heap, from its schema's JSON: measured, an Ajv instance with
 * one compiled schema holds ~18 KB plus 10 to 23 bytes per character of schema (generated code, closures).
 */
function validatorBytes(key: string): number {
  return 24 * 1024 + 24 * key.length;
}

/** The validator for a JSON Schema, compiled once per distinct schema while it stays in the cache. */
export function validatorFor(jsonSchema: Record<string, unknown>): ValidateFunction {
  const key = canonicalJson(jsonSchema);
  let validate = validators.get(key);
  if (!validate) {
    validate = new Ajv({ allErrors: true, strict: false }).compile(jsonSchema);
    validators.set(key, validate); // not kept when larger than the whole cache; compiled again next time
  }
  return validate;
}

/** JSON with object keys sorted, so one schema spelled in another key order is the same cache entry. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The cache's size, for tests and diagnostics. */
export function validatorCacheStats(): { validators: number; bytes: number; maxBytes: number } {
  return {
    validators: validators.size,
    bytes: validators.calculatedSize,
    maxBytes: VALIDATOR_CACHE_MAX_BYTES,
  };
}
