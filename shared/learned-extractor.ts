// The shape of a learned extractor: per field, CSS selectors with how a matched node becomes the value.
// Shared by the worker (activities/reading/learned/) and the API, which shows a stored site's extractors.

export type Scalar = string | number | boolean;

/** How a matched node's text (or attribute) becomes the field's value. */
export type Transform =
  | { kind: 'exact' }
  /**
   * The node's own text: its text and text formatting (b, em…), without its child elements' text — a title
   * whose heading also holds a subtitle in a span.
   */
  | { kind: 'own' }
  /** The value between a fixed prefix and suffix, e.g. "SKU: " + value. */
  | { kind: 'affix'; prefix: string; suffix: string }
  /**
   * The index-th number written in the text, e.g. 19.99 in "$19.99 incl. VAT"; `count` numbers in all, as on
   * the pages learned from ("$24.99 was $31.99" is another text).
   */
  | { kind: 'number'; index: number; count?: number }
  /**
   * The text (or attribute) as a duration, "1 hr 15 mins", "1h15", "PT1H15M", in the number field's unit
   * (minutes unless its name names another): a time the page spells in hours and minutes.
   */
  | { kind: 'duration' }
  /** The text looked up in answers seen before, e.g. "In stock" → true; unseen text answers nothing. */
  | { kind: 'lookup'; map: Record<string, Scalar> }
  /** A link's or image's URL attribute, made absolute against the page's URL. */
  | { kind: 'url' }
  /**
   * A list of objects: every match of the selector is one item's container, and each property is read
   * inside it by its own candidates (selectors relative to the container; '' is the container itself).
   */
  | { kind: 'items'; props: Record<string, Candidate[]> };

export interface Candidate {
  selector: string;
  /** The attribute read instead of the text. */
  attr?: string;
  transform: Transform;
  /** Every match is one item of the list (array fields); otherwise the selector must match at most once. */
  list?: boolean;
  /** A field no page showed a value for: it reads null (an empty list). */
  absent?: boolean;
  /**
   * The node's make-up on the pages learned from (the labels of its child elements that hold text, see
   * dom.ts): a node made up otherwise (a subtitle inside a title, a struck-out price beside the price) does
   * not answer. Text reads only; absent on candidates learned before it existed.
   */
  shapes?: string[];
}

/** Per field, the candidates that held on every page so far; null when no page showed a value yet. */
export type FieldCandidates = Record<string, Candidate[] | null>;

/** The candidate of a field no page showed a value for: it reads null. */
export const ABSENT: Candidate = { selector: '', transform: { kind: 'exact' }, absent: true };

/** A candidate's identity: its selector, what it reads and how (a lookup's learned answers aside). */
export function candidateKey(c: Candidate): string {
  const t =
    c.transform.kind === 'lookup' || c.transform.kind === 'items'
      ? c.transform.kind
      : JSON.stringify(c.transform);
  return `${c.selector}|${c.attr ?? ''}|${t}|${c.list ? 'list' : ''}${c.absent ? '|absent' : ''}`;
}

// How the candidates a model answer kept combine with those a template holds (the store's lessons).

/** The fields whose every known candidate the lesson dropped (none read the model's value on its page). */
export function emptiedFields(stored: FieldCandidates, lesson: FieldCandidates): string[] {
  return Object.keys(lesson).filter((name) => {
    const before = stored[name];
    return before && before.length > 0 && lesson[name]?.length === 0;
  });
}

/** Whether most of the lesson's fields that had candidates lost them all: the page is not the template's. */
export function misfit(stored: FieldCandidates, lesson: FieldCandidates, emptied: string[]): boolean {
  const held = Object.keys(lesson).filter((name) => (stored[name]?.length ?? 0) > 0).length;
  return held > 0 && emptied.length * 2 > held;
}

/**
 * The fields a learning page emptied (no known candidate read the model's value here) that start again from
 * this page's own candidates: a field read by its place alone, learned on a page where a missing block had
 * moved its node, holds on none of the template's other pages. A field this page shows no value for, or
 * reads nowhere, stays emptied.
 */
export function restartedFields(emptied: string[], fresh: FieldCandidates | undefined): FieldCandidates {
  const out: FieldCandidates = {};
  for (const name of emptied) {
    const own = fresh?.[name];
    if (own && own.length > 0) out[name] = own;
  }
  return out;
}

/** The candidates both hold (by identity), the lesson's version first; lookups keep both's answers. */
export function mergeCandidates(stored: FieldCandidates, lesson: FieldCandidates): FieldCandidates {
  const out: FieldCandidates = { ...stored };
  for (const name of Object.keys(lesson)) {
    const a = stored[name] ?? null;
    const b = lesson[name] ?? null;
    if (a === null || b === null) {
      out[name] = b ?? a;
      continue;
    }
    const byKey = new Map(a.map((c) => [candidateKey(c), c]));
    out[name] = b
      .filter((c) => byKey.has(candidateKey(c)))
      .map((c) => mergeLookup(byKey.get(candidateKey(c)) as Candidate, c))
      .filter((c): c is Candidate => c !== null);
  }
  return out;
}

/** A verified template's candidates narrowed by a lesson, except where none would be left. */
export function narrowed(stored: FieldCandidates, lesson: FieldCandidates): FieldCandidates {
  const merged = mergeCandidates(stored, lesson);
  for (const [name, c] of Object.entries(merged)) {
    const before = stored[name];
    if (before && before.length > 0 && (!c || c.length === 0)) merged[name] = before;
  }
  return merged;
}

function mergeLookup(a: Candidate, b: Candidate): Candidate | null {
  if (a.transform.kind !== 'lookup' || b.transform.kind !== 'lookup') return b;
  const map = { ...a.transform.map };
  for (const [text, value] of Object.entries(b.transform.map)) {
    if (Object.hasOwn(map, text) && map[text] !== value) return null;
    map[text] = value;
  }
  return { ...b, transform: { kind: 'lookup', map } };
}
