// A linear pre-scan of JSON text for its nesting depth, so a body nested thousands deep is refused before
// JSON.parse and before anything recursive (validation, error serialization) walks it.

/** The deepest `[`/`{` nesting a request body may have. Real requests (a schema inside a job) stay under 20. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` opens more than `max` arrays or objects inside one another. Brackets inside strings do not
 * count; the text need not be valid JSON (the parser decides that after), so this never throws.
 */
export function jsonNestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return false;
}
