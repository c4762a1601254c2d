// Learned extractors (issue 15), the part that reads a page: its template signature, the selectors that
// reproduce a model's answer on it, and learned selectors applied to it. Pure functions over a parsed page;
// they run in the HTML pool, so a hostile page is bounded by the pool's time and heap limits as well as by
// the element budgets here.
import { createHash } from 'node:crypto';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import {
  ABSENT,
  type Candidate,
  candidateKey,
  type FieldCandidates,
  type Scalar,
  type Transform,
} from '../../shared/learned-extractor.js';
import type { Field } from '../../shared/schema-input.js';

/** The fields a learned extractor can answer: scalars, lists of scalars, and lists of objects of scalars. */
export interface LearnableField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'items';
  list: boolean;
  required: boolean;
  /** A list of objects' properties (type `items`). */
  properties?: LearnableField[];
}

/** A parsed page and its URL (relative links are read against it). */
export interface Page {
  $: CheerioAPI;
  url: string;
}

/** The schema's fields as learnable fields, or null when one of them is not (an object, nested lists). */
export function learnableFields(fields: Field[]): LearnableField[] | null {
  const out: LearnableField[] = [];
  for (const field of fields) {
    if (field.type === 'array' && field.items?.type === 'object') {
      const properties = scalarFields(field.items.properties ?? [], false);
      if (!properties) return null;
      out.push({ name: field.name, type: 'items', list: true, required: field.required, properties });
      continue;
    }
    const one = scalarFields([field], true);
    if (!one) return null;
    out.push(...one);
  }
  return out.length > 0 ? out : null;
}

function scalarFields(fields: Field[], lists: boolean): LearnableField[] | null {
  const out: LearnableField[] = [];
  for (const field of fields) {
    const list = field.type === 'array';
    if (list && !lists) return null;
    const type = list ? field.items?.type : field.type;
    if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean') return null;
    out.push({ name: field.name, type, list, required: field.required });
  }
  return out.length > 0 ? out : null;
}

/** Elements looked at per page at most: a page of a million elements is not read past this. */
const MAX_ELEMENTS = 20_000;
/** Candidates kept per field: they must agree on every page, which is what catches a changed layout. */
const MAX_CANDIDATES = 4;
/** Text nodes longer than this are prose, never a field's node (a field's value may be long; its node short). */
const MAX_NODE_TEXT = 2_000;
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'iframe', 'object']);
const INLINE = new Set(['br', 'wbr', 'b', 'i', 'em', 'strong', 'u', 'small', 'sup', 'sub', 'mark', 'abbr']);
const VALUE_ATTRS = ['content', 'datetime', 'value', 'title', 'alt', 'href', 'src', 'data-value'];

export const normalizeText = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A looked-up text with its numbers as #: "Only 3 left in stock" and "Only 5 left in stock" answer alike. */
const lookupKey = (text: string) => text.replace(/\d+/g, '#');

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script';

/**
 * The page's structure as a short hash: tag and first class of every element of the body (text ignored;
 * later classes are mostly state, as "availability in-stock"), with a run of identical siblings (or of
 * identical pairs, as dt/dd) counted once, so a longer description or list keeps the signature while a
 * moved or added block changes it.
 */
export function domSignature($: CheerioAPI): string {
  let budget = MAX_ELEMENTS;
  const sig = (el: Element, depth: number): string => {
    budget--;
    const first = stableClasses(el)[0];
    const head = first ? `${el.tagName}.${first}` : el.tagName;
    if (depth >= 24) return head;
    const kids: string[] = [];
    for (const child of el.children) {
      if (budget <= 0) break;
      if (!isElement(child) || SKIPPED.has(child.tagName) || INLINE.has(child.tagName)) continue;
      kids.push(sig(child, depth + 1));
    }
    const runs = collapse(collapse(kids, 1), 2);
    return runs.length ? `${head}(${runs.join(',')})` : head;
  };
  const body = $('body').get(0);
  const text = body ? sig(body, 0) : '';
  return createHash('sha256').update(text).digest('hex').slice(0, 24);
}

/** Drops a run's repeats of a group of `width` siblings: a,a,a → a; dt,dd,dt,dd → dt,dd. */
function collapse(items: string[], width: number): string[] {
  const out: string[] = [];
  for (const item of items) {
    out.push(item);
    const n = out.length;
    if (n >= 2 * width) {
      let same = true;
      for (let i = 1; i <= width && same; i++) same = out[n - i] === out[n - width - i];
      if (same) out.length = n - width;
    }
  }
  return out;
}

/** A URL's shape: host and path with the parts that name one page (ids, slugs) replaced; query keys only. */
export function urlShape(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.slice(0, 200);
  }
  const segments = u.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => (isVariableSegment(s) ? ':v' : s.toLowerCase()));
  const keys = [...new Set([...u.searchParams.keys()])].sort();
  return `${u.host}/${segments.join('/')}${keys.length ? `?${keys.join('&')}` : ''}`.slice(0, 300);
}

function isVariableSegment(segment: string): boolean {
  const s = decodeURIComponent(segment).replace(/\.[a-z0-9]{2,5}$/i, '');
  return /\d/.test(s) || s.length > 24 || s.split(/[-_]/).length > 2;
}

/** Classes that look written by hand, not generated per page or per build. */
function stableClasses(el: Element): string[] {
  const cls = el.attribs.class;
  if (!cls) return [];
  return cls
    .split(/\s+/)
    .filter((c) => /^[A-Za-z_][\w-]{0,40}$/.test(c) && !/\d{3,}/.test(c) && !/__?[a-z0-9]{5,}$/i.test(c))
    .slice(0, 4);
}

const cssString = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

/**
 * CSS selectors for one element, most stable first; each names the element alone or with look-alikes.
 * Inside a list item's container (`root`), relative to it: '' is the container itself.
 */
function selectorsFor(el: Element, root?: Element): string[] {
  if (root) return relativeSelectors(el, root);
  const out: string[] = [];
  const tag = el.tagName;
  const id = el.attribs.id;
  if (id && /^[A-Za-z][\w-]{0,60}$/.test(id) && !/\d{3,}/.test(id)) out.push(`#${id}`);
  for (const attr of ['itemprop', 'property', 'name', 'data-testid']) {
    const v = el.attribs[attr];
    if (v && v.length <= 80 && !/[\n\r]/.test(v)) out.push(`${tag}[${attr}=${cssString(v)}]`);
  }
  // The first class names what the element is; later ones are mostly its state (in-stock, on-sale, active).
  const first = stableClasses(el)[0];
  const own = first ? `${tag}.${first}` : tag;
  if (first) out.push(own);
  const anchor = namedAncestor(el);
  if (anchor) out.push(`${anchor} ${own}`);
  out.push(structuralPath(el));
  return out;
}

function relativeSelectors(el: Element, root: Element): string[] {
  if (el === root) return [''];
  const first = stableClasses(el)[0];
  const out: string[] = [];
  for (const attr of ['itemprop', 'property']) {
    const v = el.attribs[attr];
    if (v && v.length <= 80 && !/[\n\r]/.test(v)) out.push(`${el.tagName}[${attr}=${cssString(v)}]`);
  }
  if (first) out.push(`${el.tagName}.${first}`);
  out.push(`:scope > ${structuralPath(el, root)}`);
  return out;
}

/** The nearest ancestor with an id or classes, as a selector. */
function namedAncestor(el: Element): string | null {
  let node = el.parent;
  for (let hops = 0; node && isElement(node) && hops < 8; hops++, node = node.parent) {
    if (node.tagName === 'body' || node.tagName === 'html') return null;
    const id = node.attribs.id;
    if (id && /^[A-Za-z][\w-]{0,60}$/.test(id) && !/\d{3,}/.test(id)) return `#${id}`;
    const first = stableClasses(node)[0];
    if (first) return `${node.tagName}.${first}`;
  }
  return null;
}

/** body > div:nth-of-type(2) > … > span:nth-of-type(1): the element's place, strictly (below `root`). */
function structuralPath(el: Element, root?: Element): string {
  const steps: string[] = [];
  let node: Element | null = el;
  while (node && node !== root && node.tagName !== 'body' && node.tagName !== 'html') {
    const parent: AnyNode | null = node.parent;
    const tag: string = node.tagName;
    let index = 1;
    if (parent && 'children' in parent)
      for (const sib of parent.children) {
        if (sib === node) break;
        if (isElement(sib) && sib.tagName === tag) index++;
      }
    steps.unshift(`${tag}:nth-of-type(${index})`);
    node = parent && isElement(parent) ? parent : null;
  }
  return root ? steps.join(' > ') : ['body', ...steps].join(' > ');
}

/** The numbers written in a text, in order: "1,299.00" → 1299, "19,99 €" → 19.99. */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/-?\d[\d.,\u00a0 ]*\d|-?\d/g)) {
    const n = parseNumber(m[0].replace(/[\u00a0 ]/g, ''));
    if (n !== null) out.push(n);
    if (out.length >= 8) break;
  }
  return out;
}

function parseNumber(raw: string): number | null {
  let s = raw;
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    // The later separator is the decimal one.
    s = lastDot > lastComma ? s.replace(/,/g, '') : s.replace(/\./g, '').replace(',', '.');
  } else if (lastComma >= 0) {
    // "1,299" groups thousands; "19,99" is a decimal comma.
    s = /^-?\d{1,3}(,\d{3})+$/.test(s) ? s.replace(/,/g, '') : s.replace(',', '.');
  } else if (/^-?\d{1,3}(\.\d{3}){2,}$/.test(s)) s = s.replace(/\./g, '');
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (isObject(a) && isObject(b))
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].every((k) => sameValue(a[k], b[k]));
  if (typeof a === 'number' && typeof b === 'number')
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
  if (typeof a === 'string' && typeof b === 'string') return normalizeText(a) === normalizeText(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  return a === b;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const isEmpty = (v: unknown) =>
  v === null ||
  v === undefined ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && v.length === 0);

/** The elements a selector names on the page, or inside a list item's container (null: not a selector). */
function select(page: Page, selector: string, scope?: Element): Element[] | null {
  try {
    if (!scope) return page.$(selector).toArray() as Element[];
    return selector === '' ? [scope] : (page.$(scope).find(selector).toArray() as Element[]);
  } catch {
    return null;
  }
}

/**
 * What one candidate reads from the page (inside `scope`, a list item's container): a value, nothing
 * (null), or `undefined` when it cannot answer.
 */
export function applyCandidate(page: Page, field: LearnableField, c: Candidate, scope?: Element): unknown {
  if (c.absent) return c.list ? [] : null;
  const nodes = select(page, c.selector, scope);
  if (!nodes) return undefined;
  if (c.transform.kind === 'items') return readItems(page, field, c.transform.props, nodes);
  if (c.list) {
    const values: unknown[] = [];
    for (const node of nodes.slice(0, 500)) {
      const v = readNode(page, node, field, c);
      if (v === undefined || v === null) return undefined;
      values.push(v);
    }
    return values;
  }
  if (nodes.length === 0) return null;
  if (nodes.length > 1) return undefined;
  return readNode(page, nodes[0] as Element, field, c);
}

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
      const values = candidates.map((c) => applyCandidate(page, prop, c, container));
      const first = values[0];
      if (first === undefined || !values.every((v) => v !== undefined && sameValue(v, first)))
        return undefined;
      item[prop.name] = isEmpty(first) ? null : first;
    }
    items.push(item);
  }
  return items;
}

function readNode(page: Page, node: Element, field: LearnableField, c: Candidate): unknown {
  const { $ } = page;
  const raw = c.attr ? normalizeText(node.attribs[c.attr] ?? '') : normalizeText($(node).text());
  if (raw.length > MAX_NODE_TEXT) return undefined;
  const t = c.transform;
  switch (t.kind) {
    case 'exact':
      return raw === '' ? null : typed(field, raw);
    case 'affix': {
      if (raw.length <= t.prefix.length + t.suffix.length) return undefined;
      if (!raw.startsWith(t.prefix) || !raw.endsWith(t.suffix)) return undefined;
      return typed(field, raw.slice(t.prefix.length, raw.length - t.suffix.length).trim());
    }
    case 'number': {
      const n = numbersIn(raw)[t.index];
      if (n === undefined) return raw === '' ? null : undefined;
      if (field.type === 'integer' && !Number.isInteger(n)) return undefined;
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

function absolute(raw: string, base: string): string | undefined {
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
        else if (text.length <= wanted.length + 48 && text.includes(wanted) && text !== wanted) {
          if (!hasChildWith(el, (t) => t.includes(wanted))) {
            const at = text.indexOf(wanted);
            out.push({
              el,
              transform: { kind: 'affix', prefix: text.slice(0, at), suffix: text.slice(at + wanted.length) },
            });
          }
        }
      } else if (typeof value === 'number' && text.length <= 80) {
        const index = numbersIn(text).findIndex((n) => sameValue(n, value));
        if (index >= 0 && !hasChildWith(el, (t) => numbersIn(t).some((n) => sameValue(n, value))))
          out.push({ el, transform: { kind: 'number', index } });
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
        out.push({ el, attr, transform: { kind: 'number', index: 0 } });
    }
  }
  return out;
}

function rankOf(m: Match): number {
  const t = m.transform;
  if (t.kind === 'exact') return m.attr ? 1 : 0;
  if (t.kind === 'url') return 1;
  if (t.kind === 'number') return m.attr ? 3 : 2;
  if (t.kind === 'affix') return 10 + t.prefix.length + t.suffix.length;
  return 100;
}

/**
 * The candidates that read `value` from this page (inside `root`, a list item's container), most stable
 * first; none for an empty value.
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
  const out: Candidate[] = [];
  const seen = new Set<string>();
  // The closest readings first: a node that is the value, then an attribute, a number in the text, the
  // value inside fixed words (shortest first), a looked-up text.
  const matches = matchesFor(page, field, first, elements).sort((a, b) => rankOf(a) - rankOf(b));
  for (const match of matches) {
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
      if (sameValue(applyCandidate(page, field, c, root), value)) out.push(c);
      if (out.length >= MAX_CANDIDATES) return out;
    }
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
      byProp[prop.name] = found.filter((c) =>
        containers.every((ct, i) => sameValue(applyCandidate(page, prop, c, ct), objects[i]?.[prop.name])),
      );
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
 * What a model's answer on one more page teaches: per field, the known candidates that read the same value
 * here (a lookup learns the text it had not seen), or fresh candidates when none were known yet.
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
      const read = applyCandidate(page, field, c);
      if (sameValue(read, value)) kept.push(c);
      else if (read === undefined && c.transform.kind === 'lookup' && !c.list) {
        const taught = teachLookup(page, c, value);
        if (taught && sameValue(applyCandidate(page, field, taught), value)) kept.push(taught);
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
    props[prop.name] = (c.transform.props[prop.name] ?? []).filter((pc) =>
      containers.every((ct, i) => {
        const item = items[i];
        return sameValue(applyCandidate(page, prop, pc, ct), isObject(item) ? item[prop.name] : undefined);
      }),
    );
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

export interface Extraction {
  data: Record<string, unknown>;
  /** The selector each field was read with. */
  selectors: Record<string, string>;
  /** Fields the extractor could not answer here: candidates disagree, a node is missing or ambiguous. */
  unanswered: string[];
}

/** The extractor applied to a page: every field's candidates must agree on one value. */
export function applyExtractor(page: Page, fields: LearnableField[], known: FieldCandidates): Extraction {
  const out: Extraction = { data: {}, selectors: {}, unanswered: [] };
  for (const field of fields) {
    const candidates = known[field.name];
    if (!candidates || candidates.length === 0) {
      out.unanswered.push(field.name);
      continue;
    }
    const values = candidates.map((c) => applyCandidate(page, field, c));
    const first = values[0];
    if (first === undefined || !values.every((v) => v !== undefined && sameValue(v, first))) {
      out.unanswered.push(field.name);
      continue;
    }
    const empty = isEmpty(first);
    if (empty && field.required) {
      out.unanswered.push(field.name);
      continue;
    }
    out.data[field.name] = empty ? (field.list ? [] : null) : first;
    out.selectors[field.name] = (candidates[0] as Candidate).selector;
  }
  return out;
}
