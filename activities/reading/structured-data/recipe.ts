// A recipe's lists and yield as structured data states them. Instructions come as one string (often HTML),
// a list of strings, HowToSteps (their text), or HowToSections (their name, then their steps); ingredients
// as strings, sometimes several to a string on separate lines. A yield comes as "4", 4, "4 servings" or
// ["4", "4 servings"]; the fullest spelling of one number is taken, and spellings of different numbers are
// ambiguous.
import { type PageEvidence, showsText } from './page-evidence.js';
import { plainLines, tokenText } from './text.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_DEPTH = 4;

/**
 * The instructions as lines: section names and steps in order. A step is one line, though its text may hold
 * line breaks; one string for all the instructions (alone or as a list's only item) is split at its lines.
 */
export function instructionLines(raw: unknown, depth = 0): string[] {
  if (typeof raw === 'string') return depth === 0 ? plainLines(raw) : [plainLines(raw).join(' ')];
  if (depth > MAX_DEPTH) return [];
  if (Array.isArray(raw))
    return raw.length === 1 && depth === 0
      ? instructionLines(raw[0], depth)
      : raw.flatMap((v) => instructionLines(v, depth + 1));
  if (!isRecord(raw)) return [];
  const body = raw.text ?? raw.itemListElement;
  if (body === undefined) return typeof raw.name === 'string' ? plainLines(raw.name) : [];
  // A section (or a step with sub-steps) names itself; a step's own name is a title or its text cut short.
  const title = raw.itemListElement !== undefined && typeof raw.name === 'string' ? plainLines(raw.name) : [];
  return [...title, ...instructionLines(body, depth + 1)];
}

/** The ingredients as lines. */
export const ingredientLines = (values: unknown[]): string[] =>
  values.flatMap((v) => (typeof v === 'string' ? plainLines(v) : typeof v === 'number' ? [String(v)] : []));

const numbersIn = (s: string) => s.match(/\d+(?:[.,]\d+)?/g) ?? [];

/** The yield's fullest spelling; 'ambiguous' when the spellings state different numbers. */
export function chooseYield(values: unknown[]): string | 'ambiguous' | undefined {
  const texts = values
    .map((v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? plainLines(v).join(' ') : ''))
    .filter((t) => numbersIn(t).length > 0);
  if (texts.length === 0) return undefined;
  if (new Set(texts.map((t) => numbersIn(t)[0])).size > 1) return 'ambiguous';
  return texts.reduce((best, t) => (t.length > best.length ? t : best));
}

const YIELD_WORDS =
  '(?:servings?|serves?|yields?|makes|portions?|portionen|personen|personnes?|pers|persons?|people|porciones|raciones|personas|porzioni|persone|porties|porções|pessoas|doses?|portioner|porsjoner|personer|port|porcij[ae]|porcje|porcji|adag|főre)';

const RANGE_WORDS = '(?:to|or|bis|oder|à|a|ou|o|tot|of|til|till)';

/**
 * Whether the page shows a yield: its words as they are ("8 slices"), or its numbers right after a yield word
 * ("Serves 4", "Servings: 4") or right before one ("4 Portionen").
 */
export function yieldShown(page: PageEvidence, value: string): boolean {
  if (/\p{L}/u.test(value) && showsText(page, value)) return true; // a bare "4" could be anything
  const numbers = numbersIn(value);
  if (numbers.length === 0 || numbers.length > 2) return false;
  // A range's ends may stand with a word between them on the page ("3 to 4", "3 bis 4") or a dash (gone in tokens).
  const n = numbers
    .map((x) => tokenText(x).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(`(?: ${RANGE_WORDS})? `);
  const near = new RegExp(`(?<= )(?:${YIELD_WORDS}(?: [^ ]+)? ${n}|${n} (?:[^ ]+ )?${YIELD_WORDS})(?= )`);
  return near.test(page.tokens);
}
