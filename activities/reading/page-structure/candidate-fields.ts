// Fields worth extracting, read off the structure: for a listing, the parts of one repeated item (link text,
// link, price, image, date, labelled parts); for a single item, its title, price, date, labelled values and
// text. The model renames and refines them; they are also the fallback schema. Each field keeps how it was
// found, so the fallback's sample can be read off the page without a model. Pure.
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { DATE, PRICE } from './elements.js';
import { signature } from './repeated-blocks.js';

export interface CandidateField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description: string;
}

export type SampleValue = string | number | null;
/** Reads a field's value from one item: a member of the repeated block, or the page for a single item. */
export type FieldReader = (scope: Cheerio<AnyNode>) => SampleValue;
export interface Candidate {
  field: CandidateField;
  read: FieldReader;
}

const MAX_FIELDS = 10;
const MAX_LABELLED = 6;
const MAX_VALUE_CHARS = 200;

/** snake_case name from a label or class ("Release date" → release_date); null when nothing usable is left. */
export function fieldName(label: string): string | null {
  const name = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return /^[a-z][a-z0-9_]*$/.test(name) ? name : null;
}

class FieldList {
  readonly candidates: Candidate[] = [];
  add(name: string | null, type: CandidateField['type'], description: string, read: FieldReader): void {
    if (!name || this.candidates.length >= MAX_FIELDS || this.candidates.some((c) => c.field.name === name))
      return;
    this.candidates.push({ field: { name, type, description }, read });
  }
}

const text = ($: CheerioAPI, el: Element) => $(el).text().replace(/\s+/g, ' ').trim();
const squeezed = (value: string | undefined): string | null => {
  const s = (value ?? '').replace(/\s+/g, ' ').trim();
  return s === '' ? null : s.slice(0, MAX_VALUE_CHARS);
};
const textOf = (node: Cheerio<AnyNode>) => squeezed(node.first().text());

/** "$1,299.00" → 1299, "€19,00" → 19: the amount of a price text, or null. */
export function priceAmount(value: string | null): number | null {
  const amount = /\d[\d.,]*/.exec(value ?? '')?.[0];
  if (!amount) return null;
  const decimal = /[.,](\d{1,2})$/.exec(amount);
  const whole = (decimal ? amount.slice(0, decimal.index) : amount).replace(/[.,]/g, '');
  const n = Number(decimal ? `${whole}.${decimal[1]}` : whole);
  return Number.isFinite(n) ? n : null;
}

function absolute(href: string | undefined, baseUrl: string): string | null {
  if (!href) return null;
  try {
    return new URL(href, baseUrl).href;
  } catch {
    return null;
  }
}

/** The fields of one member of a repeated block, each with how to read it from any member. */
export function itemCandidates(
  $: CheerioAPI,
  blockSelector: string,
  baseUrl = 'http://localhost/',
): Candidate[] {
  const list = new FieldList();
  const member = $(blockSelector).first();
  const link = member
    .find('a[href]')
    .filter((_, a) => text($, a) !== '')
    .first();
  const linkText = link.length ? text($, link[0] as Element) : null;
  if (link.length) {
    const sig = signature(link[0] as Element);
    const at = `${blockSelector} ${sig}`;
    const linkIn = (m: Cheerio<AnyNode>) => m.find(`${sig}[href]`).first();
    list.add('title', 'string', `the item's link text (${at})`, (m) => textOf(linkIn(m)));
    list.add('url', 'string', `the item's link, absolute (${at} href)`, (m) =>
      absolute(linkIn(m).attr('href'), baseUrl),
    );
  }
  for (const el of member.find('*').toArray()) {
    const own = text($, el);
    if (el.children.some((c) => c.type === 'tag') || own === '' || own === linkText) continue;
    const sig = signature(el);
    const at = `${blockSelector} ${sig}`;
    const read = (m: Cheerio<AnyNode>) => textOf(m.find(sig));
    if (PRICE.test(own))
      list.add('price', 'number', `the item's price as a number (${at})`, (m) => priceAmount(read(m)));
    else if (el.tagName === 'time' || DATE.test(own))
      list.add(
        'date',
        'string',
        `the item's date (${at})`,
        (m) => squeezed(m.find(sig).attr('datetime')) ?? read(m),
      );
    else if (sig.includes('.')) list.add(fieldName(sig.split('.')[1] ?? ''), 'string', `text of ${at}`, read);
  }
  if (member.find('img[src], img[data-src]').length)
    list.add('image_url', 'string', `the item's image URL (${blockSelector} img src)`, (m) => {
      const img = m.find('img[src], img[data-src]').first();
      return absolute(img.attr('src') ?? img.attr('data-src'), baseUrl);
    });
  return list.candidates;
}

export const itemFields = ($: CheerioAPI, blockSelector: string): CandidateField[] =>
  itemCandidates($, blockSelector).map((c) => c.field);

/** The fields of a page that shows one item (product, article, detail page), with their values on it. */
export function singleItemCandidates($: CheerioAPI, baseUrl = 'http://localhost/'): Candidate[] {
  const list = new FieldList();
  const found =
    (value: SampleValue): FieldReader =>
    () =>
      value;
  if ($('h1').length) list.add('title', 'string', 'the main heading (h1)', found(textOf($('h1'))));
  const price = $('body *')
    .toArray()
    .find((el) => !el.children.some((c) => c.type === 'tag') && PRICE.test(text($, el)));
  if (price)
    list.add(
      'price',
      'number',
      `the price as a number (${signature(price)})`,
      found(priceAmount(text($, price))),
    );
  const time = $('time').first();
  if (time.length)
    list.add(
      'published_at',
      'string',
      'the date of the item (time datetime)',
      found(squeezed(time.attr('datetime')) ?? textOf(time)),
    );
  const author = $('[rel="author"], [itemprop="author"], .author, .byline').first();
  if (author.length)
    list.add('author', 'string', `the author (${signature(author[0] as Element)})`, found(textOf(author)));
  for (const [label, at, value] of labelledValues($))
    list.add(fieldName(label), 'string', `the "${label}" value (${at})`, found(value));
  const paragraphs = $('p').filter((_, p) => text($, p).length >= 80);
  const body = found(
    squeezed(
      paragraphs
        .toArray()
        .map((p) => text($, p))
        .join(' '),
    ),
  );
  if (paragraphs.length >= 5) list.add('body', 'string', 'the main text, paragraphs joined (p)', body);
  else if (paragraphs.length >= 1) list.add('description', 'string', 'the descriptive text (p)', body);
  const image = $('main img[src], article img[src]').first();
  if (image.length)
    list.add(
      'image_url',
      'string',
      'the main image URL (img src)',
      found(absolute(image.attr('src'), baseUrl)),
    );
  return list.candidates;
}

export const singleItemFields = ($: CheerioAPI): CandidateField[] =>
  singleItemCandidates($).map((c) => c.field);

/** `Label: value` pairs from definition lists and two-column table rows: [label, where, value]. */
function labelledValues($: CheerioAPI): [string, string, string | null][] {
  const pairs: [string, string, string | null][] = [];
  $('dl dt').each((_, dt) => {
    pairs.push([text($, dt).replace(/:$/, ''), 'dl dt + dd', textOf($(dt).nextAll('dd'))]);
  });
  $('table tr').each((_, tr) => {
    const cells = $(tr).children('th, td');
    if (cells.length === 2)
      pairs.push([text($, cells[0] as Element).replace(/:$/, ''), 'table th + td', textOf(cells.eq(1))]);
  });
  return pairs.filter(([label]) => label.length > 0 && label.length <= 40).slice(0, MAX_LABELLED);
}
