// Per-field provenance: where each top-level value of a page's data came from, and for the
// model's values whether the page shows them. Work is bounded: values past MAX_LOOKUP characters, and
// lists past MAX_LEAVES values, are not looked up (in_page null).
import type { NormalizedSchema } from '../../shared/schema-input.js';
import type { FieldProvenance } from '../../shared/structured-data.js';

const MAX_LOOKUP = 500;
const MAX_LEAVES = 50;

export interface ProvenanceSources {
  /** Fields answered from structured data, with the path each was read at. */
  structured?: Record<string, string>;
  /** Fields answered by a learned extractor, with the selector each was read with. */
  learned?: Record<string, string>;
}

/** The provenance of every top-level field of `data`; fields from neither source are the model's. */
export function provenanceOf(
  schema: NormalizedSchema,
  data: unknown,
  sources: ProvenanceSources,
  modelContent: string,
): Record<string, FieldProvenance> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const values = data as Record<string, unknown>;
  const names = schema.fields.length > 0 ? schema.fields.map((f) => f.name) : Object.keys(values);
  const out: Record<string, FieldProvenance> = {};
  let page: PageText | undefined;
  for (const name of names.slice(0, 200)) {
    if (!(name in values)) continue;
    const path = sources.structured?.[name];
    const selector = sources.learned?.[name];
    if (path !== undefined) out[name] = { source: 'structured_data', path };
    else if (selector !== undefined) out[name] = { source: 'learned_extractor', selector };
    else {
      page ??= pageText(modelContent);
      out[name] = { source: 'model', ...lookUp(values[name], page) };
    }
  }
  return out;
}

interface PageText {
  raw: string;
  lower: string;
}

const pageText = (raw: string): PageText => ({ raw, lower: raw.toLowerCase() });

/** Whether a value occurs in the page, and the offset of its first leaf. */
function lookUp(value: unknown, page: PageText): Pick<FieldProvenance, 'in_page' | 'offset'> {
  const leaves: (string | number)[] = [];
  collect(value, leaves);
  if (leaves.length === 0 || leaves.length > MAX_LEAVES) return { in_page: null };
  let first: number | undefined;
  for (const leaf of leaves) {
    const at = typeof leaf === 'number' ? findNumber(leaf, page) : findText(leaf, page);
    if (at === null) return { in_page: false };
    if (at !== undefined) first ??= at;
  }
  return first === undefined ? { in_page: null } : { in_page: true, offset: first };
}

function collect(value: unknown, out: (string | number)[]): void {
  if (out.length > MAX_LEAVES) return;
  if (typeof value === 'string') {
    if (value.trim()) out.push(value);
  } else if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collect(v, out);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) collect(v, out);
}

/**
 * The offset of a text in the page (case and whitespace ignored, markdown escapes allowed); null when not
 * found; undefined when the text is too long to look up.
 */
function findText(text: string, page: PageText): number | null | undefined {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  if (text.length > MAX_LOOKUP) return undefined;
  const exact = page.lower.indexOf(words.join(' '));
  if (exact >= 0) return exact;
  // Words apart by any whitespace (line breaks, tables), each character maybe escaped with a backslash.
  // Built from literal characters and \s+ only: no nested quantifier, so it runs in linear time.
  const escaped = words.map((w) => [...w].map((ch) => `\\\\?${escapeRegex(ch)}`).join(''));
  const match = new RegExp(escaped.join('\\s+')).exec(page.lower);
  return match ? match.index : null;
}

/** The offset of a number as pages write it: 1299, 1,299, 1.299, 1 299, with 2 decimals or none. */
function findNumber(n: number, page: PageText): number | null {
  const forms = new Set<string>([String(n)]);
  if (Number.isFinite(n)) {
    const fixed = Math.abs(n).toFixed(2);
    const [whole = '', cents = ''] = fixed.split('.');
    const sign = n < 0 ? '-' : '';
    const grouped = (sep: string) => whole.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
    for (const sep of ['', ',', '.', ' ', '\u00a0']) {
      const w = grouped(sep);
      forms.add(`${sign}${w}`);
      forms.add(`${sign}${w}${sep === '.' ? ',' : '.'}${cents}`);
      if (sep === '' || sep === ' ' || sep === '\u00a0') forms.add(`${sign}${w},${cents}`);
    }
    if (cents === '00' || !Number.isInteger(n)) forms.add(String(n).replace('.', ','));
  }
  let best: number | null = null;
  for (const form of forms) {
    let from = 0;
    while (from < page.raw.length) {
      const at = page.raw.indexOf(form, from);
      if (at < 0) break;
      const before = page.raw[at - 1] ?? '';
      const after = page.raw[at + form.length] ?? '';
      // Not part of a longer number: 12 is not found in 125 or 3.12.
      if (
        !/[\d]/.test(before) &&
        !/\d/.test(after) &&
        !(/[.,]/.test(before) && /\d/.test(page.raw[at - 2] ?? ''))
      ) {
        if (best === null || at < best) best = at;
        break;
      }
      from = at + 1;
    }
  }
  return best;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
