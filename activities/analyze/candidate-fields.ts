// Fields worth extracting, read off the structure: for a listing, the parts of one repeated item (link text,
// link, price, image, date, labelled parts); for a single item, its title, price, date, labelled values and
// text. The model renames and refines them; they are also the fallback schema. Pure.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { DATE, PRICE } from './elements.js';
import { signature } from './repeated-blocks.js';

export interface CandidateField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description: string;
}

const MAX_FIELDS = 10;
const MAX_LABELLED = 6;

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
  readonly fields: CandidateField[] = [];
  add(name: string | null, type: CandidateField['type'], description: string): void {
    if (!name || this.fields.length >= MAX_FIELDS || this.fields.some((f) => f.name === name)) return;
    this.fields.push({ name, type, description });
  }
}

const text = ($: CheerioAPI, el: Element) => $(el).text().replace(/\s+/g, ' ').trim();

/** The fields of one member of a repeated block. */
export function itemFields($: CheerioAPI, blockSelector: string): CandidateField[] {
  const list = new FieldList();
  const member = $(blockSelector).first();
  const link = member
    .find('a[href]')
    .filter((_, a) => text($, a) !== '')
    .first();
  const linkText = link.length ? text($, link[0] as Element) : null;
  if (link.length) {
    const at = `${blockSelector} ${signature(link[0] as Element)}`;
    list.add('title', 'string', `the item's link text (${at})`);
    list.add('url', 'string', `the item's link, absolute (${at} href)`);
  }
  for (const el of member.find('*').toArray()) {
    const own = text($, el);
    if (el.children.some((c) => c.type === 'tag') || own === '' || own === linkText) continue;
    const at = `${blockSelector} ${signature(el)}`;
    if (PRICE.test(own)) list.add('price', 'number', `the item's price as a number (${at})`);
    else if (el.tagName === 'time' || DATE.test(own)) list.add('date', 'string', `the item's date (${at})`);
    else if (signature(el).includes('.'))
      list.add(fieldName(signature(el).split('.')[1] ?? ''), 'string', `text of ${at}`);
  }
  if (member.find('img[src], img[data-src]').length)
    list.add('image_url', 'string', `the item's image URL (${blockSelector} img src)`);
  return list.fields;
}

/** The fields of a page that shows one item (product, article, detail page). */
export function singleItemFields($: CheerioAPI): CandidateField[] {
  const list = new FieldList();
  if ($('h1').length) list.add('title', 'string', 'the main heading (h1)');
  const price = $('body *')
    .toArray()
    .find((el) => !el.children.some((c) => c.type === 'tag') && PRICE.test(text($, el)));
  if (price) list.add('price', 'number', `the price as a number (${signature(price)})`);
  if ($('time').length) list.add('published_at', 'string', 'the date of the item (time datetime)');
  const author = $('[rel="author"], [itemprop="author"], .author, .byline').first();
  if (author.length) list.add('author', 'string', `the author (${signature(author[0] as Element)})`);
  for (const [label, at] of labelledValues($))
    list.add(fieldName(label), 'string', `the "${label}" value (${at})`);
  const paragraphs = $('p').filter((_, p) => text($, p).length >= 80).length;
  if (paragraphs >= 5) list.add('body', 'string', 'the main text, paragraphs joined (p)');
  else if (paragraphs >= 1) list.add('description', 'string', 'the descriptive text (p)');
  if ($('main img[src], article img[src]').length)
    list.add('image_url', 'string', 'the main image URL (img src)');
  return list.fields;
}

/** `Label: value` pairs from definition lists and two-column table rows. */
function labelledValues($: CheerioAPI): [string, string][] {
  const pairs: [string, string][] = [];
  $('dl dt').each((_, dt) => void pairs.push([text($, dt).replace(/:$/, ''), 'dl dt + dd']));
  $('table tr').each((_, tr) => {
    const cells = $(tr).children('th, td');
    if (cells.length === 2) pairs.push([text($, cells[0] as Element).replace(/:$/, ''), 'table th + td']);
  });
  return pairs.filter(([label]) => label.length > 0 && label.length <= 40).slice(0, MAX_LABELLED);
}
