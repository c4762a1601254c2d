// Reads a page's structured data — JSON-LD, microdata, RDFa Lite and OpenGraph/meta tags, and what its
// buttons, badges and struck prices show (page-labels.ts) — into plain items, in the HTML pool's thread from
// the page it already parsed. Every read is bounded (script text, item count, nesting, value length) so a hostile page costs linear time
// and little memory.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { StructuredItem, StructuredSource } from '../../../shared/structured-data.js';
import { readPageLabels } from './page-labels.js';

export type { StructuredItem };

export const STRUCTURED_LIMITS = {
  /** JSON-LD script text read in all (characters); scripts past it are ignored. */
  jsonLdChars: 1_000_000,
  items: 200,
  depth: 6,
  /** Longer strings are dropped, not cut: a cut value would be wrong. */
  valueChars: 10_000,
  microdataProps: 5_000,
  /** How far up a microdata property looks for its item. */
  ancestors: 64,
} as const;

export function readStructuredData($: CheerioAPI): StructuredItem[] {
  const items = [...readJsonLd($), ...readAttributes($, MICRODATA), ...readAttributes($, RDFA_LITE)];
  const meta = readMeta($);
  if (meta) items.push(meta);
  const labels = readPageLabels($);
  return [...items.slice(0, STRUCTURED_LIMITS.items), ...(labels ? [labels] : [])];
}

function readJsonLd($: CheerioAPI): StructuredItem[] {
  const items: StructuredItem[] = [];
  let budget = STRUCTURED_LIMITS.jsonLdChars;
  for (const script of $('script[type="application/ld+json" i]').toArray()) {
    const text = $(script).text();
    if (text.length > budget) break;
    budget -= text.length;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue; // a broken script is ignored, like browsers and search engines do
    }
    for (const node of topNodes(parsed)) {
      const value = plain(node, 0);
      if (isRecord(value)) items.push(toItem('json-ld', value));
      if (items.length >= STRUCTURED_LIMITS.items) return items;
    }
  }
  return items;
}

/** A document, an array of documents, or an @graph: the entities at the top. */
function topNodes(parsed: unknown): unknown[] {
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.flatMap((node) => (isRecord(node) && Array.isArray(node['@graph']) ? node['@graph'] : [node]));
}

/** A bounded copy with schema.org prefixes taken off keys; over-long strings and deep nesting dropped. */
function plain(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > STRUCTURED_LIMITS.valueChars ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth >= STRUCTURED_LIMITS.depth || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value))
    return value
      .slice(0, 50)
      .map((v) => plain(v, depth + 1))
      .filter((v) => v !== undefined);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value).slice(0, 100)) {
    const copy = plain(v, depth + 1);
    if (copy !== undefined) out[key.replace(/^(https?:\/\/schema\.org\/|schema:)/, '')] = copy;
  }
  return out;
}

function toItem(source: StructuredSource, props: Record<string, unknown>): StructuredItem {
  const raw = props['@type'];
  const types = (Array.isArray(raw) ? raw : [raw]).filter((t): t is string => typeof t === 'string');
  return { source, types: types.map(typeName), props };
}

const typeName = (t: string) => t.replace(/^.*[/#:]/, '');
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where an attribute syntax keeps its items, their types and their properties. */
interface AttributeSyntax {
  source: StructuredSource;
  /** Elements that start an item. */
  scope: string;
  typeAttr: string;
  propAttr: string;
}

const MICRODATA: AttributeSyntax = {
  source: 'microdata',
  scope: '[itemscope]',
  typeAttr: 'itemtype',
  propAttr: 'itemprop',
};
/** RDFa Lite (vocab, typeof, property); `property` in the head without a typeof item is OpenGraph's, read below. */
const RDFA_LITE: AttributeSyntax = {
  source: 'rdfa',
  scope: '[typeof]',
  typeAttr: 'typeof',
  propAttr: 'property',
};

/**
 * Microdata and RDFa Lite: each property belongs to its nearest item ancestor (itemscope; typeof); a property
 * that is itself an item is a nested entity. One pass over the properties, each looking up at most
 * `ancestors` levels. Prefixed names (schema:name) and IRIs (https://schema.org/name) keep their last part.
 */
function readAttributes($: CheerioAPI, syntax: AttributeSyntax): StructuredItem[] {
  const scopes = ($(syntax.scope).toArray() as Element[]).slice(0, STRUCTURED_LIMITS.items);
  if (scopes.length === 0) return [];
  const propsOf = new Map<Element, Record<string, unknown>>();
  for (const scope of scopes) {
    const type = $(scope).attr(syntax.typeAttr);
    propsOf.set(scope, type?.trim() ? { '@type': type.trim().split(/\s+/).map(typeName) } : {});
  }
  for (const el of ($(`[${syntax.propAttr}]`).toArray() as Element[]).slice(
    0,
    STRUCTURED_LIMITS.microdataProps,
  )) {
    const owner = ownerScope(el, propsOf);
    if (!owner) continue;
    const value = propsOf.get(el) ?? propValue($, el);
    if (value === undefined) continue;
    for (const raw of ($(el).attr(syntax.propAttr) ?? '').trim().split(/\s+/).filter(Boolean)) {
      const name = typeName(raw);
      const prev = owner[name];
      if (prev === undefined) owner[name] = value;
      else if (Array.isArray(prev)) prev.push(value);
      else owner[name] = [prev, value];
    }
  }
  return scopes
    .filter((scope) => $(scope).attr(syntax.propAttr) === undefined)
    .map((scope) => toItem(syntax.source, propsOf.get(scope) ?? {}));
}

function ownerScope(el: Element, propsOf: Map<Element, Record<string, unknown>>) {
  let node: AnyNode | null = el.parent;
  for (let i = 0; node && i < STRUCTURED_LIMITS.ancestors; i++, node = node.parent) {
    const props = propsOf.get(node as Element);
    if (props) return props;
  }
  return undefined;
}

function propValue($: CheerioAPI, el: Element): string | undefined {
  const $el = $(el);
  const attr: Record<string, string> = {
    meta: 'content',
    a: 'href',
    link: 'href',
    img: 'src',
    time: 'datetime',
  };
  const name = el.tagName.toLowerCase();
  const raw =
    $el.attr('content') ??
    (attr[name] ? $el.attr(attr[name]) : undefined) ??
    $el.attr('resource') ??
    (name === 'data' ? $el.attr('value') : undefined) ??
    $el.text();
  const value = raw?.replace(/\s+/g, ' ').trim();
  return value && value.length <= STRUCTURED_LIMITS.valueChars ? value : undefined;
}

/** OpenGraph and common meta tags as one item under schema.org property names. */
const META_PROPS: [string, string][] = [
  ['og:title', 'name'],
  ['twitter:title', 'name'],
  ['og:description', 'description'],
  ['description', 'description'],
  ['og:image', 'image'],
  ['og:url', 'url'],
  ['og:site_name', 'siteName'],
  ['product:price:amount', 'offers.price'],
  ['og:price:amount', 'offers.price'],
  ['product:price:currency', 'offers.priceCurrency'],
  ['og:price:currency', 'offers.priceCurrency'],
  ['product:brand', 'brand'],
  ['article:published_time', 'datePublished'],
  ['article:modified_time', 'dateModified'],
  ['article:author', 'author'],
  ['author', 'author'],
];

/**
 * Tags naming the page's author (`article:author` as a name; a profile URL names no one) and its publication
 * date, each tag's value kept apart: where they state someone or something else than the structured data
 * answers, the page's own metadata disagrees (plausible.ts). Not `dc.date`/`dcterms.created`: those often
 * name a draft's date.
 */
const AUTHOR_TAGS = ['article:author', 'author', 'parsely-author', 'sailthru.author', 'dc.creator', 'byl'];
const PUBLISHED_TAGS = ['article:published_time', 'parsely-pub-date', 'sailthru.date', 'pubdate'];

function readMeta($: CheerioAPI): StructuredItem | null {
  const found = new Map<string, string>();
  for (const el of $('head meta[content]').toArray().slice(0, 500)) {
    const key = ($(el).attr('property') ?? $(el).attr('name') ?? '').trim().toLowerCase();
    const content = $(el).attr('content')?.trim();
    if (key && content && content.length <= STRUCTURED_LIMITS.valueChars && !found.has(key))
      found.set(key, content);
  }
  const props: Record<string, unknown> = {};
  for (const [key, path] of META_PROPS) {
    const value = found.get(key);
    if (value === undefined) continue;
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (!tail) props[head] ??= value;
    else {
      const nested = (props[head] ?? {}) as Record<string, unknown>;
      nested[tail] ??= value;
      props[head] = nested;
    }
  }
  const authorTags = AUTHOR_TAGS.flatMap((key) => found.get(key) ?? []);
  const publishedTags = PUBLISHED_TAGS.flatMap((key) => found.get(key) ?? []);
  if (authorTags.length > 0) props.authorTags = authorTags;
  if (publishedTags.length > 0) props.publishedTags = publishedTags;
  if (Object.keys(props).length === 0) return null;
  const ogType = found.get('og:type');
  return { source: 'meta', types: ogType ? [ogType] : [], props };
}
