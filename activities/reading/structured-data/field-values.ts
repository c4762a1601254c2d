// A structured value as a field's answer, in the field's type, with the check the visible page must pass for
// it to be taken. Values that state different things (two names, two prices) are ambiguous: the field goes
// to the model. A string field gets the value as a person reads it: text without HTML, an availability's
// label, a duration spelled out, a list's lines one per line; a number stated as a string ("88.00") stays as
// stated and is confirmed by the page showing that number in any spelling (88,00 €).
import type { Field } from '../../../shared/schema-input.js';
import { availabilityOf, availabilityShown, inStock } from './availability.js';
import { anotherDay, dateOf, dateShown, otherDateNear, readerDates, timeShown } from './dates.js';
import {
  durationShown,
  inFieldUnit,
  minutesOf,
  spellMinutes,
  type TimeLabel,
  timesUnder,
} from './durations.js';
import type { FieldRule } from './field-rules.js';
import { imageKey, isAbsoluteUrl } from './images.js';
import { isNumeric, numberOf, priceSpelling } from './numbers.js';
import {
  type PageEvidence,
  showsImage,
  showsLineEnd,
  showsName,
  showsNumber,
  showsText,
  showsTokens,
} from './page-evidence.js';
import { showsIngredients, showsList } from './page-lists.js';
import { chooseYield, ingredientLines, instructionLines, yieldShown } from './recipe.js';
import { plainText, tokenText } from './text.js';

export interface Candidate {
  value: unknown;
  shown: (page: PageEvidence) => boolean;
  /** The value answered once the page confirmed it, where it is the page's own spelling (a price). */
  quoted?: (page: PageEvidence) => unknown;
}
export type Outcome = Candidate | 'ambiguous' | undefined;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const always = () => true;

/**
 * The answer one property's values give a field; undefined when they give none of the field's type. The
 * entity stating them is where a duration's parts are read (field-rules.ts).
 */
export function candidateFor(
  field: Field,
  rule: FieldRule,
  values: unknown[],
  entity: Record<string, unknown> = {},
): Outcome {
  switch (rule.kind) {
    case 'ingredients':
      return lines(field, ingredientLines(values), showsIngredients);
    case 'instructions':
      return lines(field, instructionLines(values), showsList);
    case 'names':
      // An author typed as something other than a person (the publisher's Organization, a Brand, a
      // WebSite) is a byline of the site, not of a person: the model reads who wrote the page.
      if (values.some(typedNotPerson)) return 'ambiguous';
      return names(field, [...new Set(values.flatMap(nameOf))]);
    case 'image': {
      const urls = values.flatMap(textOf);
      if (!urls.every(isAbsoluteUrl)) return undefined;
      if (field.type === 'array') return lines(field, urls, every(showsImage));
      // Several photos (not renditions of one): which is "the" image is the model's choice.
      const [url] = urls;
      if (new Set(urls.map(imageKey)).size > 1) return 'ambiguous';
      return url !== undefined && field.type === 'string'
        ? { value: url, shown: (page) => showsImage(page, url) }
        : undefined;
    }
    default:
      if (field.type === 'array') return list(field, rule, values);
      return scalar(field, values, rule, entity);
  }
}

type Check = (page: PageEvidence, items: string[]) => boolean;
const every =
  (check: (page: PageEvidence, item: string) => boolean): Check =>
  (page, items) =>
    items.every((item) => check(page, item));

/** Several values for one answer, shown on the page; a string field gets them one per line. */
function lines(field: Field, items: string[], check: Check, joiner = '\n'): Candidate | undefined {
  if (items.length === 0) return undefined;
  const shown = (page: PageEvidence) => check(page, items);
  if (field.type === 'array' && (field.items?.type ?? 'string') === 'string') return { value: items, shown };
  if (field.type === 'string') return { value: items.join(joiner), shown };
  return undefined;
}

/** People (authors): a string field gets them joined by commas. */
const names = (field: Field, found: string[]): Outcome => lines(field, found, every(showsName), ', ');

function list(field: Field, rule: FieldRule, values: unknown[]): Outcome {
  const item = field.items ?? { name: 'item', type: 'string' as const, required: false };
  if (item.type === 'object' || item.type === 'array') return undefined;
  const each = values.map((v) => scalar(item, [v], rule));
  if (each.length === 0 || each.some((c) => c === undefined || c === 'ambiguous')) return undefined;
  const found = each as Candidate[];
  return { value: found.map((c) => c.value), shown: (page) => found.every((c) => c.shown(page)) };
}

function scalar(
  field: Field,
  values: unknown[],
  rule: FieldRule,
  entity: Record<string, unknown> = {},
): Outcome {
  if (values.length === 0) return undefined;
  if (rule.kind === 'yield') return yieldOf(field, values); // "4" and "4 servings" state one yield
  if (new Set(values.map(keyOf)).size > 1) return 'ambiguous';
  const raw = values[0];
  switch (rule.kind) {
    case 'price':
      return price(field, raw);
    case 'availability':
      return availability(field, raw) ?? plain(field, raw, rule);
    case 'date':
      return date(field, raw, rule, entity) ?? plain(field, raw, rule);
    case 'duration':
      return duration(field, raw, rule, entity);
    case 'currency':
      return currency(field, raw);
    default:
      return plain(field, raw, rule);
  }
}

/** Text, a number, a boolean or an identifier, confirmed by the page's text or numbers. */
function plain(field: Field, raw: unknown, rule: FieldRule): Outcome {
  const [text] = textOf(raw);
  if (text === undefined)
    return typeof raw === 'boolean' && field.type === 'boolean' ? fixed(raw) : undefined;
  if (rule.words && !/\p{L}/u.test(text)) return undefined;
  if (rule.whole && CUT.test(text)) return undefined;
  if (rule.kind === 'identifier' && rule.digits && !(/^\d+$/.test(text) && rule.digits.includes(text.length)))
    return undefined;
  const n = isNumeric(text) ? numberOf(text) : undefined;
  switch (field.type) {
    case 'string':
      if (rule.whole) return { value: text, shown: (page) => showsText(page, text) && endsWhole(page, text) };
      return {
        value: text,
        shown: (page) =>
          (n !== undefined && rule.kind !== 'identifier' && showsNumber(page, n)) || showsText(page, text),
      };
    case 'number':
    case 'integer': {
      const value = numberOf(text);
      if (value === undefined || (field.type === 'integer' && !Number.isInteger(value))) return undefined;
      return { value, shown: (page) => showsNumber(page, value) };
    }
    case 'boolean': {
      const value = /^(true|false)$/i.test(text) ? text.toLowerCase() === 'true' : undefined;
      return value === undefined ? undefined : fixed(value);
    }
    default:
      return undefined;
  }
}

/** An excerpt's mark: "…", "...", "[…]" at its end. */
const CUT = /(?:…|\.\.\.|\[…\]|\[\.\.\.\])\s*$/;
const SENTENCE_END = /[.!?。！？»"”')\]]\s*$/;

/** Running text ends where a sentence or the page's line ends: "… que je les ai" is cut short. */
const endsWhole = (page: PageEvidence, text: string) =>
  SENTENCE_END.test(text) || showsLineEnd(page, text.split('\n').at(-1) ?? '');

/** Booleans cannot be looked up on a page: taken as stated. */
const fixed = (value: unknown): Candidate => ({ value, shown: always });

/**
 * A price the page shows — in one of its price elements, where it marks any — and does not strike through
 * (a struck price is a list price). A string field gets it as the page spells it, currency included
 * ("88,00 €"): what a reader sees and a model would answer.
 */
function price(field: Field, raw: unknown): Outcome {
  const n = numberOf(raw);
  if (n === undefined || !(n > 0)) return 'ambiguous';
  const shown = (page: PageEvidence) =>
    (page.prices.size > 0 ? page.prices.has(n) : true) && showsNumber(page, n) && !page.struck.has(n);
  if (field.type === 'string')
    return {
      value: typeof raw === 'number' ? String(raw) : plainText(String(raw)),
      shown,
      quoted: (page) => priceSpelling(page.text, n),
    };
  if (field.type === 'number' || (field.type === 'integer' && Number.isInteger(n)))
    return { value: n, shown };
  return undefined;
}

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

function currency(field: Field, raw: unknown): Outcome {
  if (field.type !== 'string' || typeof raw !== 'string' || !raw.trim()) return undefined;
  const code = raw.trim();
  const symbols = CURRENCY_SYMBOLS[code.toLowerCase()] ?? [];
  return {
    value: code,
    shown: (page) => showsTokens(page, tokenText(code)) || symbols.some((s) => page.folded.includes(s)),
  };
}

function availability(field: Field, raw: unknown): Outcome {
  const found = availabilityOf(raw);
  if (!found) return undefined;
  const shown = (page: PageEvidence) => availabilityShown(page, found);
  if (field.type === 'string') return { value: found.label, shown };
  const value = field.type === 'boolean' ? inStock(found) : undefined;
  return value === undefined ? 'ambiguous' : { value, shown };
}

function date(field: Field, raw: unknown, rule: FieldRule, entity: Record<string, unknown>): Outcome {
  if (!dateOf(raw) || field.type !== 'string') return undefined;
  const value = (raw as string).trim();
  const updates = rule.updates === true;
  const showsDate = (page: PageEvidence, at: unknown, asUpdate: boolean) =>
    readerDates(at).some((d) => dateShown(page, d, asUpdate)) || timeShown(page, at, asUpdate);
  // A page whose dateline also shows its update's date, another day ("May 2, 2019 · Updated Dec 19, 2023"),
  // shows two dates for the article: which one a reader takes as its date is the model's call.
  const modified = updates ? undefined : entity.dateModified;
  const twoDays = (page: PageEvidence) => anotherDay(raw, modified) && showsDate(page, modified, true);
  // A dateline showing another date than the structured one ("Mon December 25, 2023" above a story of the
  // 17th) leaves the published date to the model too.
  const otherDate = (page: PageEvidence) => !updates && otherDateNear(page, raw);
  const shown = (page: PageEvidence) => showsDate(page, raw, updates) && !twoDays(page) && !otherDate(page);
  return { value, shown };
}

function duration(field: Field, raw: unknown, rule: FieldRule, entity: Record<string, unknown>): Outcome {
  const minutes = minutesOf(textOf(raw)[0]);
  if (minutes === undefined) return undefined;
  const parts = partsOf(rule, entity, minutes);
  const shown = (page: PageEvidence) =>
    durationShown(page, minutes, rule.time) || shownAsParts(page, minutes, rule.time, parts);
  if (field.type === 'string') return { value: spellMinutes(minutes), shown };
  const value = inFieldUnit(minutes, `${field.name} ${field.description ?? ''}`);
  if (field.type === 'number' || (field.type === 'integer' && Number.isInteger(value)))
    return { value, shown };
  return undefined;
}

type Parts = (readonly [number, TimeLabel])[];

/** A time the page shows only as its parts: each under its own label, and no other time under this one's. */
function shownAsParts(page: PageEvidence, minutes: number, label: TimeLabel | undefined, parts?: Parts) {
  if (!parts?.every(([m, partLabel]) => durationShown(page, m, partLabel))) return false;
  return label === undefined || timesUnder(page, label).every((m) => m === minutes);
}

/** A duration's parts in minutes with their labels, where the entity states each and they add up to it. */
function partsOf(rule: FieldRule, entity: Record<string, unknown>, minutes: number): Parts | undefined {
  if (!rule.parts) return undefined;
  const parts = rule.parts.map(([path, label]) => {
    const raw = entity[path];
    return [minutesOf(textOf(Array.isArray(raw) && raw.length === 1 ? raw[0] : raw)[0]), label] as const;
  });
  const known = parts.filter((p): p is readonly [number, TimeLabel] => p[0] !== undefined && p[0] > 0);
  const sum = known.reduce((total, [m]) => total + m, 0);
  return known.length === parts.length && sum === minutes ? known : undefined;
}

function yieldOf(field: Field, values: unknown[]): Outcome {
  const chosen = chooseYield(values);
  if (chosen === undefined || chosen === 'ambiguous') return chosen;
  const shown = (page: PageEvidence) => yieldShown(page, chosen);
  if (field.type === 'string') return { value: chosen, shown };
  const numbers = chosen.match(/\d+(?:[.,]\d+)?/g) ?? [];
  const n = numbers.length === 1 ? numberOf(numbers[0]) : undefined;
  if (n === undefined || (field.type !== 'number' && !(field.type === 'integer' && Number.isInteger(n))))
    return undefined;
  return { value: n, shown };
}

/** A value's text: strings without their HTML, numbers as written, an entity's @value, name or url. */
function textOf(raw: unknown): string[] {
  if (typeof raw === 'string') {
    const text = plainText(raw);
    return text ? [text] : [];
  }
  if (typeof raw === 'number') return Number.isFinite(raw) ? [String(raw)] : [];
  if (isRecord(raw)) return textOf(raw['@value'] ?? raw.name ?? raw.url ?? raw.contentUrl);
  return [];
}

/** An entity with a type that is not a person (an Organization, a Brand, a Thing): no person's name. */
function typedNotPerson(raw: unknown): boolean {
  if (Array.isArray(raw)) return raw.some(typedNotPerson);
  if (!isRecord(raw)) return false;
  const types = [raw['@type']].flat().filter((t): t is string => typeof t === 'string');
  return types.length > 0 && !types.some((t) => /(?:^|[/#:])Person$/.test(t));
}

const nameOf = (raw: unknown): string[] =>
  isRecord(raw) ? textOf(raw.name) : Array.isArray(raw) ? raw.flatMap(nameOf) : textOf(raw);

/** What two values must share to state the same thing. */
export function keyOf(raw: unknown): string {
  if (typeof raw === 'number') return String(raw);
  const found = availabilityOf(raw);
  if (found) return found.label;
  const n = typeof raw === 'string' && isNumeric(raw) ? numberOf(raw) : undefined;
  if (n !== undefined) return String(n);
  const [text] = textOf(raw);
  return text === undefined ? JSON.stringify(raw) : tokenText(text);
}
