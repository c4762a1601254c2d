// Learned extractors, the common ground of reading and learning: which fields can be learned, a
// page as both see it, and values — text normalised, numbers as pages write them, equality of answers.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { Field } from '../../../shared/schema-input.js';
import { inFieldUnit, minutesOf } from '../structured-data/durations.js';

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
export const MAX_ELEMENTS = 20_000;
/** Text nodes longer than this are prose, never a field's node (a field's value may be long; its node short). */
export const MAX_NODE_TEXT = 2_000;
export const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'svg',
  'iframe',
  'object',
]);
/** Text formatting inside a value: part of it, never a node of its own. */
export const FORMATTING = new Set(['br', 'wbr', 'b', 'i', 'em', 'strong', 'u', 'sup', 'sub', 'mark', 'abbr']);

export const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script';

export const normalizeText = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A looked-up text with its numbers as #: "Only 3 left in stock" and "Only 5 left in stock" answer alike. */
export const lookupKey = (text: string) => text.replace(/\d+/g, '#');

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

/**
 * A duration written in a text ("1 hr 15 mins", "PT1H15M", "45 min"), in the unit the field's name names
 * (minutes by default), read as the structured-data path reads one; undefined when the text is no duration.
 */
export function durationIn(field: LearnableField, text: string): number | undefined {
  const minutes = minutesOf(text);
  return minutes === undefined ? undefined : inFieldUnit(minutes, field.name);
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

/** The value every one of `values` reads alike; undefined when one reads nothing (undefined) or another value. */
export function agreedValue(values: readonly unknown[]): unknown {
  const first = values[0];
  return first !== undefined && values.every((v) => v !== undefined && sameValue(v, first))
    ? first
    : undefined;
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

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const isEmpty = (v: unknown) =>
  v === null ||
  v === undefined ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && v.length === 0);
