// Learned extractors, the part that learns from a page: where the model's values show on it, the
// candidates (a selector and how its node becomes the value) that read them, and what one more model answer
// keeps of the candidates known. Pure functions over a parsed page; they run in the HTML pool, so a hostile
// page is bounded by the pool's time and heap limits as well as by the element budgets here.
import type { AnyNode, Element } from 'domhandler';
import {
  ABSENT,
  type Candidate,
  candidateKey,
  type FieldCandidates,
  type Scalar,
  type Transform,
} from '../../../shared/learned-extractor.js';
import { absolute, applyCandidate, ownText, select, withShapes } from './read.js';
import { selectorsFor } from './selectors.js';
import { stableClasses } from './structure.js';
import {
  durationIn,
  isElement,
  isEmpty,
  isObject,
  type LearnableField,
  lookupKey,
  MAX_ELEMENTS,
  MAX_NODE_TEXT,
  normalizeText,
  numbersIn,
  type Page,
  SKIPPED,
  sameValue,
} from './values.js';

/** Candidates kept per field: they must agree on every page, which is what catches a changed layout. */
const MAX_CANDIDATES = 6;
const VALUE_ATTRS = ['content', 'datetime', 'value', 'title', 'alt', 'href', 'src', 'data-value'];

/** Elements of the page a value can be read from: the body's, plus <meta> in the head; or `root` and below. */
function elementsOf({ $ }: Page, root?: Element): Element[] {
  const out: Element[] = root ? [root] : [];
  const walk = (node: AnyNode) => {
    if (out.length >= MAX_ELEMENTS || !('children' in node)) return;
    for (const child of node.children) {
      if (!isElement(child) || SKIPPED.has(child.tagName)) continue;
      out.push(child);
      walk(child);
    }
  };
  if (root) {
    walk(root);
    return out;
  }
  const body = $('body').get(0);
  if (body) walk(body);
  for (const meta of $('head meta').toArray().slice(0, 200)) out.push(meta as Element);
  return out;
}

interface Match {
  el: Element;
  attr?: string;
  transform: Transform;
  /** A list's first line read by a node around the deepest one that shows it (ranked after that one). */
  wraps?: boolean;
}

/** Where on the page a model's value shows: nodes whose text (or an attribute) gives it, deepest first. */
function matchesFor(page: Page, field: LearnableField, value: Scalar, elements: Element[]): Match[] {
  const { $ } = page;
  const out: Match[] = [];
  const texts = new Map<Element, string>();
  const textOf = (el: Element) => {
    let t = texts.get(el);
    if (t === undefined) {
      t = normalizeText($(el).text());
      texts.set(el, t);
    }
    return t;
  };
  const hasChildWith = (el: Element, test: (t: string) => boolean) =>
    el.children.some((c) => isElement(c) && !SKIPPED.has(c.tagName) && test(textOf(c)));
  const wanted = typeof value === 'string' ? normalizeText(value) : '';
  const nameTokens = field.name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((t) => t.length >= 3);
  for (const el of elements) {
    if (out.length >= 48) break;
    const isMeta = el.tagName === 'meta';
    const text = isMeta ? '' : textOf(el);
    if (!isMeta && text.length <= MAX_NODE_TEXT && text) {
      if (typeof value === 'string' && field.type === 'string') {
        if (text === wanted && !hasChildWith(el, (t) => t === wanted))
          out.push({ el, transform: { kind: 'exact' } });
        // A list's item may wrap its text in a link on one line and not on the others ("<li><a>1/2 cup
        // stewed beans</a></li><li>1 teaspoon oil</li>"): the item holding the link reads the list where the
        // link cannot, so the nodes around the deepest one that read the same text are matches too.
        else if (text === wanted && field.list) out.push({ el, transform: { kind: 'exact' }, wraps: true });
        else if (
          text !== wanted &&
          text.length <= wanted.length + 48 &&
          text.includes(wanted) &&
          !hasChildWith(el, (t) => t.includes(wanted))
        ) {
          const at = text.indexOf(wanted);
          out.push({
            el,
            transform: { kind: 'affix', prefix: text.slice(0, at), suffix: text.slice(at + wanted.length) },
          });
        }
        // Its own text as well: it still reads the value when a subtitle or a badge joins it in the node.
        if (text.includes(wanted) && !hasChildWith(el, (t) => t === wanted) && ownText(el) === wanted)
          out.push({ el, transform: { kind: 'own' } });
      } else if (typeof value === 'number' && text.length <= 80) {
        const numbers = numbersIn(text);
        const index = numbers.findIndex((n) => sameValue(n, value));
        if (index >= 0 && !hasChildWith(el, (t) => numbersIn(t).some((n) => sameValue(n, value))))
          out.push({ el, transform: { kind: 'number', index, count: numbers.length } });
        // A time spelled in hours and minutes ("1 hr 15 mins" for 75): its numbers are not the value. Also
        // where one is ("45 mins"), so a later page's "1 hr 15 mins" still reads.
        const isDuration = (t: string) => sameValue(durationIn(field, t), value);
        if (isDuration(text) && !hasChildWith(el, isDuration))
          out.push({ el, transform: { kind: 'duration' } });
      } else if (typeof value === 'boolean' && text.length <= 60 && !hasChildWith(el, (t) => t === text)) {
        const about =
          `${el.attribs.class ?? ''} ${el.attribs.id ?? ''} ${el.attribs.itemprop ?? ''} ${text}`.toLowerCase();
        if (nameTokens.some((t) => about.includes(t)) || /stock|avail/.test(about))
          out.push({ el, transform: { kind: 'lookup', map: { [lookupKey(text)]: value } } });
      }
    }
    for (const attr of VALUE_ATTRS) {
      const raw = el.attribs[attr];
      if (raw === undefined || raw.length > MAX_NODE_TEXT) continue;
      const v = normalizeText(raw);
      if (typeof value === 'string' && field.type === 'string' && v === wanted)
        out.push({ el, attr, transform: { kind: 'exact' } });
      else if (
        typeof value === 'string' &&
        field.type === 'string' &&
        (attr === 'href' || attr === 'src') &&
        absolute(raw.trim(), page.url) === value.trim()
      )
        out.push({ el, attr, transform: { kind: 'url' } });
      else if (typeof value === 'number' && numbersIn(v).length === 1 && sameValue(numbersIn(v)[0], value))
        out.push({ el, attr, transform: { kind: 'number', index: 0, count: 1 } });
      // An ISO duration in an attribute (`content="PT1H15M"`) as well as a number's.
      if (typeof value === 'number' && sameValue(durationIn(field, v), value))
        out.push({ el, attr, transform: { kind: 'duration' } });
    }
  }
  return out;
}

function rankOf(m: Match): number {
  const t = m.transform;
  if (t.kind === 'exact') return m.attr ? 1 : m.wraps ? 0.75 : 0;
  if (t.kind === 'own') return 0.5;
  if (t.kind === 'url') return 1;
  if (t.kind === 'number') return m.attr ? 3 : 2;
  if (t.kind === 'duration') return m.attr ? 3.5 : 2.5;
  if (t.kind === 'affix') return 10 + t.prefix.length + t.suffix.length;
  return 100;
}

/**
 * The candidates that read `value` from this page (inside `root`, a list item's container), most stable
 * first; none for an empty value. Each remembers its node's make-up here (read.ts, shapeOf).
 */
export function deriveCandidates(
  page: Page,
  field: LearnableField,
  value: unknown,
  root?: Element,
): Candidate[] {
  if (isEmpty(value)) return [];
  if (field.type === 'items') return Array.isArray(value) ? deriveItems(page, field, value) : [];
  const elements = elementsOf(page, root);
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string' && typeof first !== 'number' && typeof first !== 'boolean') return [];
  const seen = new Set<string>();
  // The closest readings first: a node that is the value, its own text, then an attribute, a number in the
  // text, the value inside fixed words (shortest first), a looked-up text.
  const matches = matchesFor(page, field, first, elements).sort((a, b) => rankOf(a) - rankOf(b));
  const perMatch = matches.slice(0, 16).map((match) => {
    const valid: Candidate[] = [];
    for (const selector of selectorsFor(match.el, root)) {
      const c: Candidate = {
        selector,
        transform: match.transform,
        ...(match.attr ? { attr: match.attr } : {}),
        ...(Array.isArray(value) ? { list: true } : {}),
      };
      const key = candidateKey(c);
      if (seen.has(key)) continue;
      seen.add(key);
      const shapes = new Set<string>();
      if (sameValue(applyCandidate(page, field, c, root, shapes), value)) valid.push(withShapes(c, shapes));
    }
    return valid;
  });
  // Taken in turns, the most stable selector of each reading first: readings of different nodes (or of one
  // node's text and own text) check one another, and no single node fills every place.
  const out: Candidate[] = [];
  for (let turn = 0; out.length < MAX_CANDIDATES && perMatch.some((v) => v.length > turn); turn++)
    for (const valid of perMatch) {
      const c = valid[turn];
      if (c && out.length < MAX_CANDIDATES) out.push(c);
    }
  return out;
}

/**
 * A list of objects: the items' containers are the children of the lowest common ancestor of the first two
 * items' nodes (same tag and class), and each property is read inside a container by relative candidates
 * that hold for every item of the answer.
 */
function deriveItems(page: Page, field: LearnableField, items: unknown[]): Candidate[] {
  const props = field.properties ?? [];
  const objects = items.filter(isObject);
  if (objects.length < 2 || objects.length !== items.length) return [];
  const anchor = props.find((p) => {
    const [a, b] = [objects[0]?.[p.name], objects[1]?.[p.name]];
    return p.type === 'string' && typeof a === 'string' && typeof b === 'string' && a.trim() && a !== b;
  });
  if (!anchor) return [];
  const elements = elementsOf(page);
  const nodeOf = (value: Scalar) =>
    matchesFor(page, anchor, value, elements).sort((a, b) => rankOf(a) - rankOf(b))[0]?.el;
  const first = nodeOf(objects[0]?.[anchor.name] as string);
  const second = nodeOf(objects[1]?.[anchor.name] as string);
  if (!first || !second) return [];
  const pair = containersOf(first, second);
  if (!pair) return [];
  const [container, parent] = pair;
  const own = stableClasses(container)[0];
  const childSelector = own ? `${container.tagName}.${own}` : container.tagName;
  const containerSelectors = [
    ...selectorsFor(parent)
      .slice(0, 3)
      .map((p) => `${p} > ${childSelector}`),
    ...(own ? [childSelector] : []),
  ];
  const out: Candidate[] = [];
  for (const selector of containerSelectors) {
    const containers = select(page, selector);
    if (!containers || containers.length !== objects.length) continue;
    const byProp: Record<string, Candidate[]> = {};
    for (const prop of props) {
      const at = objects.findIndex((o) => !isEmpty(o[prop.name]));
      if (at < 0) {
        byProp[prop.name] = [{ ...ABSENT }];
        continue;
      }
      const found = deriveCandidates(page, prop, objects[at]?.[prop.name], containers[at]);
      byProp[prop.name] = found.flatMap((c) => {
        const shapes = new Set<string>();
        const holds = containers.every((ct, i) =>
          sameValue(applyCandidate(page, prop, c, ct, shapes), objects[i]?.[prop.name]),
        );
        return holds ? [withShapes(c, shapes)] : [];
      });
    }
    if (Object.values(byProp).some((c) => c.length === 0)) continue;
    const c: Candidate = { selector, transform: { kind: 'items', props: byProp }, list: true };
    if (sameValue(applyCandidate(page, field, c), items)) out.push(c);
    if (out.length >= 2) break;
  }
  return out;
}

/** The two items' containers' (children of their lowest common ancestor) first, and that ancestor. */
function containersOf(a: Element, b: Element): [Element, Element] | null {
  const path = (el: Element) => {
    const out: Element[] = [];
    for (let n: AnyNode | null = el; n && isElement(n); n = n.parent) out.unshift(n);
    return out;
  };
  const pa = path(a);
  const pb = path(b);
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  const parent = pa[i - 1];
  const ca = pa[i];
  const cb = pb[i];
  if (!parent || !ca || !cb || ca.tagName !== cb.tagName) return null;
  if ((stableClasses(ca)[0] ?? '') !== (stableClasses(cb)[0] ?? '')) return null;
  return [ca, parent];
}

/**
 * What a model's answer on one more page teaches, for the fields given (those the model answered): per
 * field, the known candidates that read the same value here (a lookup learns the text it had not seen, a
 * candidate the node's make-up here), or fresh candidates when none were known yet.
 */
export function learnFromAnswer(
  page: Page,
  fields: LearnableField[],
  data: Record<string, unknown>,
  known: FieldCandidates | null,
): FieldCandidates {
  const out: FieldCandidates = {};
  for (const field of fields) {
    const value = data[field.name];
    const before = known?.[field.name];
    if (!before) {
      out[field.name] = isEmpty(value) ? null : deriveCandidates(page, field, value);
      continue;
    }
    const kept: Candidate[] = [];
    for (const c of before) {
      if (c.transform.kind === 'items') {
        const narrowed = narrowItems(page, field, c, value);
        if (narrowed) kept.push(narrowed);
        continue;
      }
      const shapes = new Set<string>();
      const read = applyCandidate(page, field, c, undefined, shapes);
      if (sameValue(read, value)) kept.push(withShapes(c, shapes));
      else if (read === undefined && c.transform.kind === 'lookup' && !c.list) {
        const taught = teachLookup(page, c, value);
        if (taught && sameValue(applyCandidate(page, field, taught, undefined, shapes), value))
          kept.push(withShapes(taught, shapes));
      }
    }
    out[field.name] = kept;
  }
  return out;
}

/**
 * A list-of-objects candidate kept with the property candidates that read this answer's items here; null
 * when its containers are not the answer's items or a property has no candidate left.
 */
function narrowItems(page: Page, field: LearnableField, c: Candidate, value: unknown): Candidate | null {
  if (c.transform.kind !== 'items') return null;
  const items = Array.isArray(value) ? value : [];
  const containers = select(page, c.selector);
  if (!containers || containers.length !== items.length) return null;
  const props: Record<string, Candidate[]> = {};
  for (const prop of field.properties ?? []) {
    props[prop.name] = (c.transform.props[prop.name] ?? []).flatMap((pc) => {
      const shapes = new Set<string>();
      const holds = containers.every((ct, i) => {
        const item = items[i];
        const want = isObject(item) ? item[prop.name] : undefined;
        return sameValue(applyCandidate(page, prop, pc, ct, shapes), want);
      });
      return holds ? [withShapes(pc, shapes)] : [];
    });
    if (props[prop.name]?.length === 0) return null;
  }
  return { ...c, transform: { kind: 'items', props } };
}

function teachLookup({ $ }: Page, c: Candidate, value: unknown): Candidate | null {
  if (c.transform.kind !== 'lookup' || isEmpty(value) || Array.isArray(value) || typeof value === 'object')
    return null;
  let nodes: Element[];
  try {
    nodes = $(c.selector).toArray() as Element[];
  } catch {
    return null;
  }
  if (nodes.length !== 1) return null;
  const node = nodes[0] as Element;
  const raw = c.attr ? normalizeText(node.attribs[c.attr] ?? '') : normalizeText($(node).text());
  if (!raw || raw.length > 60 || Object.keys(c.transform.map).length >= 20) return null;
  const key = lookupKey(raw);
  return { ...c, transform: { kind: 'lookup', map: { ...c.transform.map, [key]: value as Scalar } } };
}
