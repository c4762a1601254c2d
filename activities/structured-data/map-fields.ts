// Maps a page's structured data to the requested fields: by the field's name and its schema.org synonyms,
// values coerced to the field's type. The visible page wins: a value is taken only when the page's cleaned
// text shows it (strings by normalised text, numbers by value); anything else is left to the model.
import type { Field } from '../../shared/schema-input.js';
import type { StructuredItem } from '../../shared/structured-data.js';

export interface FieldMapping {
  /** The answered fields' values, by field name. */
  data: Record<string, unknown>;
  answered: string[];
  missing: Field[];
  /** Where each answered value was read, e.g. `json-ld Product offers.price` (provenance). */
  paths: Record<string, string>;
}

/** schema.org paths tried for a field, by its normalised name (lower case, no _ - or spaces). */
const SYNONYMS: Record<string, string[]> = {
  name: ['name', 'headline', 'title'],
  title: ['name', 'headline', 'title'],
  productname: ['name'],
  headline: ['headline', 'name'],
  price: ['offers.price', 'offers.lowPrice', 'offers.priceSpecification.price', 'price'],
  currency: ['offers.priceCurrency', 'priceCurrency', 'offers.priceSpecification.priceCurrency'],
  pricecurrency: ['offers.priceCurrency', 'priceCurrency'],
  sku: ['sku', 'mpn', 'productID'],
  brand: ['brand.name', 'brand'],
  image: ['image.url', 'image', 'thumbnailUrl'],
  imageurl: ['image.url', 'image', 'thumbnailUrl'],
  description: ['description'],
  summary: ['description', 'abstract'],
  date: ['datePublished', 'dateCreated', 'startDate'],
  datepublished: ['datePublished', 'dateCreated'],
  publishedat: ['datePublished', 'dateCreated'],
  published: ['datePublished', 'dateCreated'],
  author: ['author.name', 'author', 'creator.name'],
  availability: ['offers.availability', 'availability'],
  instock: ['offers.availability'],
  rating: ['aggregateRating.ratingValue'],
  reviewcount: ['aggregateRating.reviewCount', 'aggregateRating.ratingCount'],
  url: ['url'],
  company: ['hiringOrganization.name', 'organizer.name'],
  employer: ['hiringOrganization.name'],
  location: ['jobLocation.address.addressLocality', 'location.name', 'location.address.addressLocality'],
  salary: ['baseSalary.value.value', 'baseSalary.value.minValue'],
  startdate: ['startDate'],
  enddate: ['endDate'],
  category: ['category', 'articleSection'],
  breadcrumbs: ['itemListElement.name'],
};

/** Entities describing the page's subject come before site-wide ones (WebSite, Organization, …). */
const SITE_TYPES = new Set([
  'WebSite',
  'WebPage',
  'Organization',
  'BreadcrumbList',
  'SearchAction',
  'ImageObject',
]);

export function mapFields(fields: Field[], items: StructuredItem[], pageText: string): FieldMapping {
  return mapWith(fields, items, pageEvidence(pageText));
}

function mapWith(fields: Field[], items: StructuredItem[], page: PageEvidence): FieldMapping {
  const ordered = [...items].sort((a, b) => rank(a) - rank(b));
  const mapping: FieldMapping = { data: {}, answered: [], missing: [], paths: {} };
  for (const field of fields) {
    const found = isObjectList(field) ? listFor(field, ordered, page) : valueFor(field, ordered, page);
    if (found === undefined) mapping.missing.push(field);
    else {
      mapping.data[field.name] = found.value;
      mapping.paths[field.name] = found.path;
      mapping.answered.push(field.name);
    }
  }
  return mapping;
}

const isObjectList = (field: Field) => field.type === 'array' && field.items?.type === 'object';

/**
 * A list of objects (a listing's `items`) from a JSON-LD ItemList, or from the page's entities of one type
 * (two or more Products, say). Taken only when every entity answers every property of the item.
 */
function listFor(field: Field, items: StructuredItem[], page: PageEvidence): Found | undefined {
  const properties = field.items?.properties;
  if (!properties || properties.length === 0) return undefined;
  for (const { path, entities } of candidateLists(items)) {
    const rows = entities.map((props) =>
      mapWith(properties, [{ source: 'json-ld', types: [], props }], page),
    );
    if (rows.length > 0 && rows.every((r) => r.missing.length === 0))
      return { value: rows.map((r) => r.data), path };
  }
  return undefined;
}

function candidateLists(items: StructuredItem[]): { path: string; entities: Record<string, unknown>[] }[] {
  const lists: { path: string; entities: Record<string, unknown>[] }[] = [];
  for (const item of items) {
    if (!item.types.includes('ItemList')) continue;
    const elements = item.props.itemListElement;
    const list = (Array.isArray(elements) ? elements : [elements]).map((el) =>
      isRecord(el) && isRecord(el.item) ? el.item : el,
    );
    if (list.every(isRecord))
      lists.push({
        path: `${item.source} ItemList itemListElement`,
        entities: list as Record<string, unknown>[],
      });
  }
  const byType = new Map<string, { path: string; entities: Record<string, unknown>[] }>();
  for (const item of items) {
    const type = item.types[0];
    if (!type || SITE_TYPES.has(type) || item.source === 'meta') continue;
    const list = byType.get(type) ?? { path: `${item.source} ${type} (every one)`, entities: [] };
    list.entities.push(item.props);
    byType.set(type, list);
  }
  for (const list of byType.values()) if (list.entities.length >= 2) lists.push(list);
  return lists;
}

interface Found {
  value: unknown;
  path: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const SOURCE_RANK = { 'json-ld': 0, microdata: 1, rdfa: 1, meta: 2 } as const;
const rank = (item: StructuredItem) =>
  SOURCE_RANK[item.source] * 2 + (item.types.some((t) => SITE_TYPES.has(t)) ? 1 : 0);

function valueFor(field: Field, items: StructuredItem[], page: PageEvidence): Found | undefined {
  const key = field.name.toLowerCase().replace(/[\s_-]/g, '');
  const paths = [...(SYNONYMS[key] ?? []), field.name, camel(field.name)];
  for (const item of items) {
    for (const path of paths) {
      const raw = at(item.props, path.split('.'));
      if (raw === undefined) continue;
      const value = coerce(field, raw, key);
      if (value !== undefined && shown(value, page))
        return { value, path: `${item.source} ${item.types[0] ?? 'item'} ${path}` };
    }
  }
  return undefined;
}

const camel = (name: string) => name.replace(/[_-](\w)/g, (_, c: string) => c.toUpperCase());

/** A path through nested entities; through an array, its first element (listed names: every element). */
function at(value: unknown, path: string[]): unknown {
  if (path.length === 0) return value;
  if (Array.isArray(value)) {
    const all = value.map((v) => at(v, path)).filter((v) => v !== undefined);
    return all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  return at((value as Record<string, unknown>)[path[0] as string], path.slice(1));
}

/** The value as the field's type, or undefined when it is not one (objects are left to the model). */
export function coerce(field: Field, raw: unknown, key = ''): unknown {
  if (Array.isArray(raw) && field.type !== 'array')
    return raw.length > 0 ? coerce(field, raw[0], key) : undefined;
  switch (field.type) {
    case 'string':
      return text(raw);
    case 'number':
      return numberOf(raw);
    case 'integer': {
      const n = numberOf(raw);
      return n !== undefined && Number.isInteger(n) ? n : undefined;
    }
    case 'boolean':
      return booleanOf(raw, key);
    case 'array': {
      const item = field.items ?? { name: 'item', type: 'string', required: false };
      if (item.type === 'object' || item.type === 'array') return undefined;
      const list = (Array.isArray(raw) ? raw : [raw]).map((v) => coerce(item, v));
      return list.length > 0 && list.every((v) => v !== undefined) ? list : undefined;
    }
    case 'object':
      return undefined;
  }
}

function text(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw.trim() || undefined;
  if (typeof raw === 'number') return String(raw);
  if (typeof raw === 'object' && raw !== null) {
    const o = raw as Record<string, unknown>;
    return text(o['@value'] ?? o.name ?? o.url);
  }
  return undefined;
}

/** 19.99, "19.99", "$1,299.00", "19,99 €"; null for anything that is not one number. */
export function numberOf(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string' || raw.length > 100) return undefined;
  const found = raw.match(/-?\d[\d.,\s]*/g)?.map((s) => s.trim()) ?? [];
  if (found.length !== 1) return undefined;
  // Around the number only a currency symbol or code: "BK-17" or "2 pieces" is not a number.
  const rest = raw.replace(found[0] as string, '').trim();
  if (!/^(?:[$€£¥₹]|[A-Za-z]{3})?\s*(?:[$€£¥₹]|[A-Za-z]{3})?$/.test(rest)) return undefined;
  return parseDigits(found[0] as string);
}

/** "1,299.00" and "1.299,00" and "19,99": the last separator followed by 1-2 digits is the decimal one. */
function parseDigits(s: string): number | undefined {
  const compact = s.replace(/\s/g, '').replace(/[.,]$/, '');
  const decimal = compact.match(/[.,](\d{1,2})$/);
  const whole = decimal ? compact.slice(0, -decimal[0].length) : compact;
  const n = Number(`${whole.replace(/[.,]/g, '')}${decimal ? `.${decimal[1]}` : ''}`);
  return Number.isFinite(n) ? n : undefined;
}

function booleanOf(raw: unknown, key: string): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw !== 'string') return undefined;
  const v = raw
    .trim()
    .replace(/^.*[/#]/, '')
    .toLowerCase();
  if (v === 'true' || v === 'false') return v === 'true';
  // schema.org ItemAvailability for "in stock"-style fields.
  if (key.includes('stock') || key.includes('available')) {
    if (['instock', 'limitedavailability', 'onlineonly', 'instoreonly'].includes(v)) return true;
    if (['outofstock', 'soldout', 'discontinued'].includes(v)) return false;
  }
  return undefined;
}

interface PageEvidence {
  text: string;
  numbers: Set<number>;
}

/** The cleaned text, normalised (case, whitespace, markdown escapes), and every number it shows. */
function pageEvidence(pageText: string): PageEvidence {
  const text = normalise(pageText);
  const numbers = new Set<number>();
  for (const m of pageText.matchAll(/\d[\d.,]*/g)) {
    const n = parseDigits(m[0]);
    if (n !== undefined) numbers.add(n);
    if (numbers.size > 100_000) break;
  }
  return { text, numbers };
}

const normalise = (s: string) =>
  s
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/** Currencies a page shows by symbol rather than code. */
const CURRENCY_SYMBOLS: Record<string, string[]> = {
  usd: ['$'],
  eur: ['€'],
  gbp: ['£'],
  jpy: ['¥'],
  inr: ['₹'],
  cad: ['$'],
  aud: ['$'],
};

/** Whether the page shows the value (booleans cannot be checked and are taken as given). */
function shown(value: unknown, page: PageEvidence): boolean {
  if (Array.isArray(value)) return value.every((v) => shown(v, page));
  if (typeof value === 'number') return page.numbers.has(value);
  if (typeof value !== 'string') return true;
  const v = normalise(value);
  if (v.length === 0) return false;
  if (page.text.includes(v)) return true;
  return (CURRENCY_SYMBOLS[v] ?? []).some((symbol) => page.text.includes(symbol));
}
