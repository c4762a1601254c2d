// URL patterns a tenant gives (crawl follow_pattern) run on RE2 (re2js): linear in the URL, so no pattern can
// backtrack for hours. The request check and the crawl use this one module, so a pattern accepted is a pattern
// that runs. Matching searches anywhere in the URL, like RegExp.prototype.test (anchor with ^…$ for a whole URL).
import { RE2JS, RE2JSException } from 're2js';

/**
 * Characters of a follow_pattern at most: short enough that a pattern of plain characters always compiles
 * within MAX_PATTERN_PROGRAM_SIZE (only repetition can exceed it), so length alone is rarely what refuses one.
 */
export const MAX_PATTERN_LENGTH = 300;
/**
 * RE2 instructions of a compiled pattern at most. Matching costs up to (instructions × URL length) steps;
 * real URL patterns compile to under 100, while `[a-z]{1000}` (1,002) takes ~20 ms per 1 KB URL.
 */
export const MAX_PATTERN_PROGRAM_SIZE = 500;

export interface UrlPattern {
  /** True if the pattern matches somewhere in `url` (unanchored, as RegExp.prototype.test). */
  test(url: string): boolean;
  /** Instructions of the compiled program: what one character of input costs at most. */
  programSize: number;
}

type Compiled = { ok: true; pattern: UrlPattern } | { ok: false; problem: string };

/** Compiled patterns by source: a crawl evaluates the same pattern on every page. */
const cache = new Map<string, Compiled>();
const CACHE_ENTRIES = 100;

function compile(source: string): Compiled {
  const known = cache.get(source);
  if (known) return known;
  const result = compileUncached(source);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(source, result);
  return result;
}

function compileUncached(source: string): Compiled {
  if (source.length > MAX_PATTERN_LENGTH)
    return { ok: false, problem: `longer than ${MAX_PATTERN_LENGTH} characters` };
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    // e.g. backreferences and lookaround, which need backtracking.
    return { ok: false, problem: `not an RE2 regular expression: ${err.message}` };
  }
  const programSize = compiled.programSize();
  if (programSize > MAX_PATTERN_PROGRAM_SIZE)
    return {
      ok: false,
      problem: `too complex: compiles to ${programSize} RE2 instructions, at most ${MAX_PATTERN_PROGRAM_SIZE}`,
    };
  return { ok: true, pattern: { test: (url) => compiled.test(url), programSize } };
}

/** Why a pattern is refused, or null if it compiles on RE2 within the bounds. */
export function urlPatternProblem(source: string): string | null {
  const result = compile(source);
  return result.ok ? null : result.problem;
}

/** The pattern compiled on RE2; throws with the reason if urlPatternProblem() refuses it. */
export function compileUrlPattern(source: string): UrlPattern {
  const result = compile(source);
  if (!result.ok) throw new Error(`follow_pattern is ${result.problem}`);
  return result.pattern;
}
