// The shape of a learned extractor (issue 15): per field, CSS selectors with how a matched node becomes the
// value. Shared by the worker (activities/learned/) and the API, which shows a stored site's extractors.

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
