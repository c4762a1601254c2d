// Learned extractors, the part that reads a page with learned candidates: what each candidate
// reads, whether its node is still made up as on the pages it was learned from, and the extractor's answer
// (a field only when every candidate agrees). Pure functions over a parsed page, run in the HTML pool.
import type { Element } from 'domhandler';
import type { Candidate, FieldCandidates } from '../../../shared/learned-extractor.js';
import { stableClasses } from './structure.js';
import {
  agreedValue,
  durationIn,
  FORMATTING,
  isElement,
  isEmpty,
  type LearnableField,
  lookupKey,
  MAX_NODE_TEXT,
  normalizeText,
  numbersIn,
  type Page,
  SKIPPED,
} from './values.js';

/** Make-ups a candidate keeps at most: past this a node of another make-up does not answer. */
export const MAX_SHAPES = 8;
/** The make-up of no node (or an empty one): a candidate answers nothing only where it was seen to. */
export const NO_NODE = '(none)';

/** The elements a selector names on the page, or inside a list item's container (null: not a selector). */
export function select(page: Page, selector: string, scope?: Element): Element[] | null {
  try {
    if (!scope) return page.$(selector).toArray() as Element[];
    return selector === '' ? [scope] : (page.$(scope).find(selector).toArray() as Element[]);
  } catch {
    return null;
  }
}

/**
 * A node's make-up: the labels (tag.firstClass) of the elements inside it that hold text of their own,
 * text formatting aside. "" for a node of text alone; "span.subtitle" for a title holding a subtitle.
 */
export function shapeOf(node: Element): string {
  const labels = new Set<string>();
  let budget = 200;
  const walk = (el: Element) => {
    for (const child of el.children) {
      if (--budget <= 0) return;
      if (!isElement(child) || SKIPPED.has(child.tagName)) continue;
      if (!FORMATTING.has(child.tagName)) {
        const hasText = child.children.some((c) => c.type === 'text' && c.data.trim() !== '');
        if (hasText) {
          const first = stableClasses(child)[0];
          labels.add(first ? `${child.tagName}.${first}` : child.tagName);
        }
      }
      walk(child);
    }
  };
  walk(node);
  return [...labels].sort().join(',').slice(0, 200);
}

/** A node's own text: its text nodes and those inside text formatting, not its other elements'. */
export function ownText(node: Element): string {
  const parts: string[] = [];
  const walk = (el: Element) => {
    for (const child of el.children) {
      if (child.type === 'text') parts.push(child.data);
      else if (isElement(child) && FORMATTING.has(child.tagName)) {
        if (child.tagName === 'br' || child.tagName === 'wbr') parts.push(' ');
        walk(child);
      }
    }
  };
  walk(node);
  return normalizeText(parts.join(''));
}

/**
 * What one candidate reads from the page (inside `scope`, a list item's container): a value, nothing
 * (null), or `undefined` when it cannot answer. With `seen` (learning), the nodes' make-ups are not checked
 * but collected there.
 */
export function applyCandidate(
  page: Page,
  field: LearnableField,
  c: Candidate,
  scope?: Element,
  seen?: Set<string>,
): unknown {
  if (c.absent) return c.list ? [] : null;
  const value = readCandidate(page, field, c, scope, seen);
  if (value === undefined || !isEmpty(value) || c.transform.kind === 'items') return value;
  // Nothing here, where the pages learned from showed a value: another layout, not an absent field.
  if (seen) seen.add(NO_NODE);
  else if (c.shapes && !c.shapes.includes(NO_NODE)) return undefined;
  return value;
}

function readCandidate(
  page: Page,
  field: LearnableField,
  c: Candidate,
  scope?: Element,
  seen?: Set<string>,
): unknown {
  const nodes = select(page, c.selector, scope);
  if (!nodes) return undefined;
  if (c.transform.kind === 'items') return readItems(page, field, c.transform.props, nodes);
  if (c.list) {
    const values: unknown[] = [];
    for (const node of nodes.slice(0, 500)) {
      const v = readNode(page, node, field, c, seen);
      if (v === undefined || v === null) return undefined;
      values.push(v);
    }
    return values;
  }
  if (nodes.length === 0) return null;
  if (nodes.length === 1) return readNode(page, nodes[0] as Element, field, c, seen);
  // Several nodes answer a one-value field only when each reads the same value: a page may show its image or
  // title twice (a desktop column and a mobile tab), and a place in the body, the only candidate naming one of
  // them alone, moves under any wrapper. Nodes that read differently leave the field to the model.
  if (nodes.length > SAME_NODES_MAX) return undefined;
  return agreedValue(nodes.map((node) => readNode(page, node, field, c, seen)));
}

/** At most this many nodes of one selector may answer a one-value field together. */
const SAME_NODES_MAX = 4;

/** A list of objects, one per container; every property's candidates must agree inside each. */
function readItems(
  page: Page,
  field: LearnableField,
  props: Record<string, Candidate[]>,
  containers: Element[],
): unknown {
  const items: Record<string, unknown>[] = [];
  for (const container of containers.slice(0, 500)) {
    const item: Record<string, unknown> = {};
    for (const prop of field.properties ?? []) {
      const candidates = props[prop.name];
      if (!candidates || candidates.length === 0) return undefined;
      const value = agreedValue(candidates.map((c) => applyCandidate(page, prop, c, container)));
      if (value === undefined) return undefined;
      item[prop.name] = isEmpty(value) ? null : value;
    }
    items.push(item);
  }
  return items;
}

/**
 * Whether a candidate's node is made up as on the pages it was learned from (text reads only). Where a
 * block is missing, the next one moves into its place and must not answer for it: a number read by its
 * place alone also keeps the words around it ("30 min prep" against "60 min cook") and the label beside it
 * ("Prep Time" against "Cook Time", each in an element of its own), and one text read whole (not a list's item)
 * by its place alone the label it starts with, if any ("Difficulty: hard" where a description was).
 */
function madeUpAsLearned(node: Element, text: string, c: Candidate, seen?: Set<string>): boolean {
  if (c.attr) return true;
  const placed = !namesItsNode(c);
  // The words that introduce it ("By" against "Reviewed by"): a neighbour moved into its place by a missing
  // block reads alike but is introduced otherwise. Only when there are some, so what was learned before
  // still matches (an own-text read is checked only then, or when it was learned with some).
  const lead = placed ? leadIn(node) : '';
  if (c.transform.kind === 'own') {
    if (!lead && !c.shapes?.some((s) => s.startsWith('|after '))) return true;
    return checkShape(lead ? `|after ${lead}` : '', c, seen);
  }
  let shape = shapeOf(node);
  if (placed) {
    if (c.transform.kind === 'number') {
      shape += `|${wordsAround(text)}`;
      // Its label may stand beside it in an element of its own ("Prep Time" | "5 mins"): only when there is
      // one, so what was learned without one still matches.
      const beside = c.list ? '' : labelBeside(node);
      if (beside) shape += `|beside ${beside}`;
    } else if (c.transform.kind === 'duration') {
      // Its unit words change with the value ("45 mins", "1 hr 15 mins"): the label beside it only.
      const beside = c.list ? '' : labelBeside(node);
      if (beside) shape += `|beside ${beside}`;
    } else if (c.transform.kind === 'exact') {
      // Only a label changes the shape, so what was learned without one before still matches. An affix
      // read has its fixed words already (they must be there to read): a "label" found in it may run into
      // the value ("Made by Jane Doe: …") and would differ on every page. A list's item keeps whether it
      // starts with a label, not the label's words: steps may each name theirs ("Make the dough: …"), but a
      // note or a section's heading ("Note: …", "For the sauce:") among items without one is no item.
      const label = leadingLabel(text);
      if (label) shape += c.list ? '|label' : `|label ${label}`;
      // A label written in bold at its start ("<strong>Prep time =</strong> 10 mins"), with no colon to tell.
      const bold = c.list || label ? '' : boldLead(node);
      if (bold) shape += `|bold ${bold}`;
    }
  }
  return checkShape(lead ? `${shape}|after ${lead}` : shape, c, seen);
}

/** Whether the make-up is one the candidate was learned with (with `seen`, learning: collected there). */
function checkShape(shape: string, c: Candidate, seen?: Set<string>): boolean {
  if (seen) {
    seen.add(shape);
    return true;
  }
  return !c.shapes || c.shapes.includes(shape);
}

/**
 * The words written just before a node in its parent ("by" in "By <a>Jane</a>"), after any element before it:
 * lower-cased letters, the last three words, from at most 8 text nodes.
 */
function leadIn(node: Element): string {
  let before = '';
  let steps = 0;
  for (let n = node.prev; n && n.type === 'text' && steps < 8; n = n.prev, steps++)
    before = `${n.data.slice(-80)} ${before}`;
  return wordsAround(before.slice(-160)).split(' ').slice(-3).join(' ');
}

/**
 * The words of a bold element that starts a node and is followed by more text ("prep time" in
 * `<h4><strong>Prep time =</strong> 10 mins</h4>`), lower-cased letters, at most four words; '' otherwise.
 */
function boldLead(node: Element): string {
  let first = node.children[0];
  if (first?.type === 'text' && first.data.trim() === '') first = node.children[1];
  if (!first || !isElement(first) || !['b', 'strong'].includes(first.tagName)) return '';
  if (normalizeText(textOf(node, 400)).length <= normalizeText(textOf(first, 80)).length) return '';
  const words = wordsAround(textOf(first, 80));
  return words && words.split(' ').length <= 4 ? words : '';
}

/**
 * The label in the element just before a node ("prep time" in `<div>Prep Time</div><div>5 mins</div>`): its
 * words, when the node has no text before it and that element's text is short words without numbers (a
 * label, not a value that changes from page to page); '' otherwise.
 */
function labelBeside(node: Element): string {
  let prev = node.prev;
  for (let steps = 0; prev && prev.type === 'text' && steps < 4; steps++) {
    if (prev.data.trim() !== '') return '';
    prev = prev.prev;
  }
  if (!prev || !isElement(prev) || SKIPPED.has(prev.tagName)) return '';
  const raw = normalizeText(textOf(prev, 80));
  if (raw === '' || raw.length > 40 || /\d/.test(raw)) return '';
  const words = wordsAround(raw);
  return words.split(' ').length <= 4 ? words : '';
}

/** An element's text, read no further than `max` characters (a label's element is small). */
function textOf(el: Element, max: number): string {
  let out = '';
  let budget = 50;
  const walk = (n: Element) => {
    for (const child of n.children) {
      if (out.length > max || --budget <= 0) return;
      if (child.type === 'text') out += child.data;
      else if (isElement(child) && !SKIPPED.has(child.tagName)) walk(child);
    }
  };
  walk(el);
  return out;
}

/** A node's words without its numbers, lower-cased: the fixed text a number is written in. */
const wordsAround = (text: string) =>
  normalizeText(text.toLowerCase().replace(/[^\p{L}]+/gu, ' ')).slice(0, 80);

/**
 * The label a node's text starts with ("Difficulty" in "Difficulty: hard"), lower-cased: one to four words
 * of letters before a colon at the start, looked for in the first 60 characters only.
 */
function leadingLabel(text: string): string {
  const start = normalizeText(text.slice(0, 60));
  const label = /^(\p{L}+(?: \p{L}+){0,3}) ?:/u.exec(start)?.[1];
  return label ? label.toLowerCase() : '';
}

function readNode(
  page: Page,
  node: Element,
  field: LearnableField,
  c: Candidate,
  seen?: Set<string>,
): unknown {
  const { $ } = page;
  const t = c.transform;
  // The node's whole text, read once: its make-up and its value come from it (not for attributes or own text).
  const text = c.attr || t.kind === 'own' ? '' : $(node).text();
  if (!madeUpAsLearned(node, text, c, seen)) return undefined;
  const raw = c.attr
    ? normalizeText(node.attribs[c.attr] ?? '')
    : t.kind === 'own'
      ? ownText(node)
      : normalizeText(text);
  if (raw.length > MAX_NODE_TEXT) return undefined;
  switch (t.kind) {
    case 'exact':
      return raw === '' ? null : typed(field, raw);
    case 'own':
      // A heading left with no text of its own is not the title it was.
      return raw === '' ? undefined : typed(field, raw);
    case 'affix': {
      if (raw.length <= t.prefix.length + t.suffix.length) return undefined;
      if (!raw.startsWith(t.prefix) || !raw.endsWith(t.suffix)) return undefined;
      return typed(field, raw.slice(t.prefix.length, raw.length - t.suffix.length).trim());
    }
    case 'number': {
      const numbers = numbersIn(raw);
      if (numbers.length === 0) return raw === '' ? null : undefined;
      if (t.count !== undefined && numbers.length !== t.count) return undefined;
      const n = numbers[t.index];
      if (n === undefined) return undefined;
      if (field.type === 'integer' && !Number.isInteger(n)) return undefined;
      return n;
    }
    case 'duration': {
      if (raw === '') return null;
      const n = durationIn(field, raw);
      if (n === undefined || (field.type === 'integer' && !Number.isInteger(n))) return undefined;
      return n;
    }
    case 'lookup': {
      const key = lookupKey(raw);
      return Object.hasOwn(t.map, key) ? t.map[key] : undefined;
    }
    case 'url':
      return raw === '' ? null : absolute(raw, page.url);
    case 'items':
      return undefined;
  }
}

export function absolute(raw: string, base: string): string | undefined {
  try {
    return new URL(raw, base).href;
  } catch {
    return undefined;
  }
}

/** A string read as the field's type; undefined when it does not fit. */
function typed(field: LearnableField, raw: string): unknown {
  if (field.type === 'string') return raw;
  if (field.type === 'boolean') return undefined;
  const nums = numbersIn(raw);
  if (nums.length !== 1 || normalizeText(raw).replace(/[\d.,\s-]/g, '').length > 0) return undefined;
  const n = nums[0] as number;
  return field.type === 'integer' && !Number.isInteger(n) ? undefined : n;
}

/**
 * A candidate with the make-ups `seen` added to those it knew (an attribute's or own text's read keeps only
 * whether it was seen with no node).
 */
export function withShapes(c: Candidate, seen: Set<string>): Candidate {
  if (c.absent || c.transform.kind === 'items') return c;
  const shapes = [...new Set([...(c.shapes ?? []), ...seen])];
  return shapes.length > MAX_SHAPES ? c : { ...c, shapes };
}

export interface Extraction {
  data: Record<string, unknown>;
  /** The selector each field was read with. */
  selectors: Record<string, string>;
  /** Fields the extractor could not answer here: candidates disagree, a node is missing or ambiguous. */
  unanswered: string[];
}

/**
 * The extractor applied to a page: a field is answered only when every one of its candidates reads one
 * value (a candidate that cannot answer — a node missing, ambiguous or made up otherwise — leaves it
 * unanswered); other fields are left to the model.
 */
export function applyExtractor(page: Page, fields: LearnableField[], known: FieldCandidates): Extraction {
  const out = readFields(page, fields, known);
  // A page that shows few of the values its template's pages showed is laid out otherwise: what it lacks
  // is not known to be absent, so its empty answers are left to the model too.
  const shown = fields.filter((f) => known[f.name]?.some((c) => !c.absent)).map((f) => f.name);
  const withValue = shown.filter((name) => name in out.data && !isEmpty(out.data[name])).length;
  if (shown.length > 0 && withValue * 2 <= shown.length)
    for (const [name, value] of Object.entries(out.data))
      if (isEmpty(value)) {
        delete out.data[name];
        delete out.selectors[name];
        out.unanswered.push(name);
      }
  return out;
}

/**
 * Whether a candidate's "no node" says the value is absent: it names its node (an id, class or attribute,
 * no place among siblings), or it was learned as absent. A place-only selector finds nothing as well when
 * a wrapper moved the node.
 */
const namesItsNode = (c: Candidate) => c.absent === true || !c.selector.includes(':nth-of-type(');

function readFields(page: Page, fields: LearnableField[], known: FieldCandidates): Extraction {
  const out: Extraction = { data: {}, selectors: {}, unanswered: [] };
  for (const field of fields) {
    const candidates = known[field.name];
    if (!candidates || candidates.length === 0) {
      out.unanswered.push(field.name);
      continue;
    }
    const first = agreedValue(candidates.map((c) => applyCandidate(page, field, c)));
    if (first === undefined) {
      out.unanswered.push(field.name);
      continue;
    }
    const empty = isEmpty(first);
    // "Nothing here" from selectors that only name a place cannot tell an absent value from a moved one.
    if (empty && (field.required || !candidates.some(namesItsNode))) {
      out.unanswered.push(field.name);
      continue;
    }
    out.data[field.name] = empty ? (field.list ? [] : null) : first;
    out.selectors[field.name] = (candidates[0] as Candidate).selector;
  }
  return out;
}
