// Maps a page's structured data to the requested fields. A value answered here costs no model call, so it
// must not be wrong: it is read from the page's subject (the entity stating most of the requested fields,
// never the site's own entities), and taken only when the visible page shows it in some spelling
// (field-values.ts). Where the subject's statement is ambiguous (offers or same-typed entities that disagree)
// or the page does not show it, the field is left to the model; the OpenGraph/meta tags stand in only for
// what the subject does not state.
import type { Field } from '../../../shared/schema-input.js';
import type { StructuredItem } from '../../../shared/structured-data.js';
import { type FieldRule, ruleFor } from './field-rules.js';
import { type Candidate, candidateFor, type Outcome } from './field-values.js';
import { at, nodesById, type Props } from './id-graph.js';
import { imageKey } from './images.js';
import { type PageEvidence, pageEvidence } from './page-evidence.js';
import { plausible } from './plausible.js';
import {
  authorsOf,
  entitiesPublished,
  metaBylines,
  metaPublished,
  siteNames,
  siteTaglines,
} from './site-names.js';
import { tokenText } from './text.js';

export interface FieldMapping {
  /** The answered fields' values, by field name. */
  data: Record<string, unknown>;
  answered: string[];
  missing: Field[];
  /** Where each answered value was read, e.g. `json-ld Product offers.price` (provenance). */
  paths: Record<string, string>;
}

const isRecord = (v: unknown): v is Props => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Entities describing the site, the page's frame or a part of the subject: never the subject themselves. */
const SITE_TYPES = new Set([
  'WebSite',
  'Organization',
  'Corporation',
  'BreadcrumbList',
  'SearchAction',
  'ReadAction',
  'ImageObject',
  'SiteNavigationElement',
  'WPHeader',
  'WPFooter',
  'WPSideBar',
  'Person',
  'Brand',
  'ListItem',
  'ItemList',
  'Offer',
  'AggregateRating',
  'Review',
  'MediaObject',
  'AudioObject',
  'VideoObject',
]);
const isSiteType = (t: string) => SITE_TYPES.has(t) || /Page$/.test(t);
const isSubjectType = (item: StructuredItem) => !item.types.some(isSiteType);
/** Page-level types lose a tie to a more specific subject (a blog post's Recipe over its Article). */
const GENERIC_TYPES = new Set(['Article', 'BlogPosting', 'NewsArticle', 'CreativeWork', 'Thing']);
const SOURCE_RANK = { 'json-ld': 0, microdata: 1, rdfa: 1, meta: 2, page: 3 } as const;

interface Context {
  page: PageEvidence;
  /** The site's own names (site-names.ts). */
  site: Set<string>;
  /** The authors the page's article, page and recipe entities and its author meta tag name (plausible.ts). */
  authors: Set<string>;
  /** The people each author meta tag names (plausible.ts). */
  metaAuthors: string[][];
  /** The publication dates the meta tags and the article, page and recipe entities state (plausible.ts). */
  published: unknown[];
  /** The site's descriptions of itself (site-names.ts). */
  taglines: Set<string>;
  /** The page's meta description (plausible.ts). */
  metaDescription?: unknown;
  /** JSON-LD nodes by @id, for references such as `"author": {"@id": "#/schema/person/1"}`. */
  nodes: Map<string, Props>;
  /** Mapping the items of a listing (listFor), not the page's subject. */
  inList?: boolean;
}

export function mapFields(fields: Field[], items: StructuredItem[], pageText: string): FieldMapping {
  const page = pageEvidence(pageText, items.find((i) => i.source === 'page')?.props);
  const entities = items.filter((i) => i.source !== 'page');
  const site = siteNames(entities);
  return mapWith(fields, entities, {
    page,
    site,
    authors: authorsOf(entities, site),
    metaAuthors: metaBylines(entities, site),
    published: [...metaPublished(entities), ...entitiesPublished(entities)],
    taglines: siteTaglines(entities),
    metaDescription: entities.find((i) => i.source === 'meta')?.props.description,
    nodes: nodesById(entities),
  });
}

function mapWith(fields: Field[], items: StructuredItem[], ctx: Context): FieldMapping {
  const chain = sources(fields, items, ctx);
  const mapping: FieldMapping = { data: {}, answered: [], missing: [], paths: {} };
  for (const field of fields) {
    const found = isObjectList(field) ? listFor(field, items, ctx) : valueFor(field, chain, items, ctx);
    if (found === undefined) mapping.missing.push(field);
    else {
      mapping.data[field.name] = found.value;
      mapping.paths[field.name] = found.path;
      mapping.answered.push(field.name);
    }
  }
  return mapping;
}

interface Found {
  value: unknown;
  path: string;
}

/** Where a field is looked for, in order: the subject, the same entity in another syntax, the meta tags. */
function sources(fields: Field[], items: StructuredItem[], ctx: Context): StructuredItem[] {
  const candidates = items.filter((i) => i.source !== 'meta' && isSubjectType(i));
  const score = new Map(
    candidates.map((item) => [item, fields.filter((f) => statement(f, ruleFor(f), item, ctx)).length]),
  );
  const order = (item: StructuredItem) => [
    -(score.get(item) ?? 0),
    item.types.every((t) => GENERIC_TYPES.has(t)) ? 1 : 0,
    SOURCE_RANK[item.source],
  ];
  const ranked = candidates
    .filter((i) => (score.get(i) ?? 0) > 0)
    .sort((a, b) => compare(order(a), order(b)));
  const subject = ranked[0];
  const meta = items.filter((i) => i.source === 'meta');
  if (!subject) return meta;
  const others = ranked.filter((i) => i.source !== subject.source && sharesType(i, subject));
  const bySource = new Map(others.map((i) => [i.source, i]));
  return [subject, ...bySource.values(), ...meta];
}

const compare = (a: number[], b: number[]) => a.reduce((d, v, i) => d || v - (b[i] as number), 0);
const sharesType = (a: StructuredItem, b: StructuredItem) => a.types.some((t) => b.types.includes(t));

interface Stated {
  outcome: Outcome;
  path: string;
}

/** What one entity states for a field: its offers' reading, or its first property with a usable value. */
function statement(field: Field, rule: FieldRule, item: StructuredItem, ctx: Context): Stated | undefined {
  const read = rule.read?.(item.props);
  if (read) {
    if ('ambiguous' in read) return { outcome: 'ambiguous', path: read.path };
    const outcome = candidateFor(field, rule, read.values);
    if (outcome) return { outcome, path: read.path };
  }
  for (const path of rule.paths) {
    const raw = at(item.props, path.split('.'), ctx.nodes);
    if (raw === undefined) continue;
    const outcome = candidateFor(field, rule, Array.isArray(raw) ? raw : [raw], item.props);
    if (outcome) return { outcome, path };
  }
  return undefined;
}

/**
 * The first source stating the field decides: its value when the page shows it and no entity of the same
 * type and syntax states otherwise (a page listing several products or recipes); else the model.
 */
function valueFor(
  field: Field,
  chain: StructuredItem[],
  items: StructuredItem[],
  ctx: Context,
): Found | undefined {
  const rule = ruleFor(field);
  for (const item of chain) {
    const stated = statement(field, rule, item, ctx);
    if (!stated) continue;
    if (stated.outcome === 'ambiguous' || stated.outcome === undefined) return undefined;
    const candidate = stated.outcome;
    const siblings = items.filter((i) => i !== item && i.source === item.source && sharesType(i, item));
    if (siblings.some((s) => disagrees(candidate, statement(field, rule, s, ctx)))) return undefined;
    if (rule.kind === 'image' && item.source !== 'meta' && previewDiffers(field, rule, candidate, items, ctx))
      return undefined;
    if (!candidate.shown(ctx.page)) return undefined;
    const setting = { ...ctx, source: item.source, subjectName: chain[0]?.props.name };
    if (!plausible(rule, candidate.value, setting)) return undefined;
    return {
      value: candidate.quoted?.(ctx.page) ?? candidate.value,
      path: `${item.source} ${item.types[0] ?? 'item'} ${stated.path}`,
    };
  }
  return undefined;
}

/**
 * Which of a recipe's or product's photos is "the" image is a choice: where the page names a preview image
 * (og:image) that is not the subject's image (or, for a list, not among them), the model decides.
 */
function previewDiffers(
  field: Field,
  rule: FieldRule,
  candidate: Candidate,
  items: StructuredItem[],
  ctx: Context,
): boolean {
  const ours = new Set(
    (Array.isArray(candidate.value) ? candidate.value : [candidate.value]).map(keyOfImage),
  );
  return items
    .filter((i) => i.source === 'meta')
    .some((meta) => {
      const stated = statement(field, rule, meta, ctx);
      if (!stated) return false;
      if (stated.outcome === 'ambiguous' || stated.outcome === undefined) return true;
      const theirs = Array.isArray(stated.outcome.value) ? stated.outcome.value : [stated.outcome.value];
      return theirs.some((v) => !ours.has(keyOfImage(v)));
    });
}

const keyOfImage = (v: unknown) => (typeof v === 'string' ? imageKey(v) : JSON.stringify(v));

function disagrees(candidate: Candidate, other: Stated | undefined): boolean {
  if (!other) return false;
  if (other.outcome === 'ambiguous' || other.outcome === undefined) return true;
  return answerKey(other.outcome.value) !== answerKey(candidate.value);
}

const answerKey = (value: unknown): string =>
  JSON.stringify(value, (_, v) => (typeof v === 'string' ? tokenText(v) : v));

const isObjectList = (field: Field) => field.type === 'array' && field.items?.type === 'object';

/**
 * A list of objects (a listing's `items`) from a JSON-LD ItemList, or from the page's entities of one type
 * (two or more Products, say). Taken only when every entity answers every property of the item.
 */
function listFor(field: Field, items: StructuredItem[], ctx: Context): Found | undefined {
  const properties = field.items?.properties;
  if (!properties || properties.length === 0) return undefined;
  for (const { path, entities } of candidateLists(items)) {
    const rows = entities.map((props) =>
      mapWith(properties, [{ source: 'json-ld', types: [], props }], { ...ctx, inList: true }),
    );
    if (rows.length > 0 && rows.every((r) => r.missing.length === 0))
      return { value: rows.map((r) => r.data), path };
  }
  return undefined;
}

interface EntityList {
  path: string;
  entities: Props[];
}

function candidateLists(items: StructuredItem[]): EntityList[] {
  const lists: EntityList[] = [];
  for (const item of items) {
    if (!item.types.includes('ItemList')) continue;
    const elements = item.props.itemListElement;
    const list = (Array.isArray(elements) ? elements : [elements]).map((el) =>
      isRecord(el) && isRecord(el.item) ? el.item : el,
    );
    if (list.every(isRecord)) lists.push({ path: `${item.source} ItemList itemListElement`, entities: list });
  }
  const byType = new Map<string, EntityList>();
  for (const item of items) {
    const type = item.types[0];
    if (!type || !isSubjectType(item) || item.source === 'meta') continue;
    const list = byType.get(type) ?? { path: `${item.source} ${type} (every one)`, entities: [] };
    list.entities.push(item.props);
    byType.set(type, list);
  }
  for (const list of byType.values()) if (list.entities.length >= 2) lists.push(list);
  return lists;
}
