// What a page is made of, counted: headings, images, tables, forms, prices, dates, navigation, text blocks.
// Each count is defined by the selector named in its description, so a reader can check it on the page.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { ElementTypeSchema } from '../../../shared/schemas/analyze.js';
import { CHROME, signature } from './repeated-blocks.js';

export type ElementType = (typeof ElementTypeSchema)['options'][number];

export interface DetectedElement {
  name: string;
  type: ElementType;
  description: string;
  count: number;
}

export interface PageCounts {
  h1: number;
  headings: number;
  images: number;
  tables: number;
  forms: number;
  /** Inputs, selects and text areas inside forms (hidden inputs left out). */
  formFields: number;
  prices: number;
  dates: number;
  navLinks: number;
  paragraphs: number;
  /** Characters of text in those paragraphs. */
  paragraphChars: number;
  codeBlocks: number;
  articles: number;
}

/** A currency sign or code next to an amount: "$24.50", "24,50 €", "EUR 1,299", "£5". */
export const PRICE =
  /(?:[$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY)\b)\s?\d[\d.,]*|\d[\d.,]*\s?(?:[€£]|\b(?:USD|EUR|GBP|CHF)\b)/;
/** ISO dates and "3 March 2024" / "March 3, 2024" forms. */
export const DATE =
  /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{4}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2},\s+\d{4}\b/;
const IMAGES = 'img[src], img[data-src]';
const TEXT_BLOCK_CHARS = 80;

/** Elements whose own text (not their children's) matches: each such element counts once. */
function ownTextMatches($: CheerioAPI, pattern: RegExp, skip = ''): Element[] {
  return $('body *')
    .toArray()
    .filter((el) => {
      if (['script', 'style', 'noscript', 'template'].includes(el.tagName)) return false;
      if (skip && $(el).closest(skip).length > 0) return false;
      const own = el.children
        .filter((c) => c.type === 'text')
        .map((c) => (c as unknown as { data: string }).data)
        .join(' ');
      return pattern.test(own);
    });
}

/** The most common signature among elements, to name where a kind of text lives. */
function commonSignature(els: Element[]): string {
  const counts = new Map<string, number>();
  for (const el of els) counts.set(signature(el), (counts.get(signature(el)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

export function countPage($: CheerioAPI): { counts: PageCounts; priceEls: Element[]; dateEls: Element[] } {
  const paragraphs = $('p')
    .toArray()
    .map((p) => $(p).text().replace(/\s+/g, ' ').trim())
    .filter((t) => t.length >= TEXT_BLOCK_CHARS);
  const priceEls = ownTextMatches($, PRICE);
  const dateEls = [...$('time').toArray(), ...ownTextMatches($, DATE, 'time')];
  const navLinks = $('nav a[href]').length || $('header a[href]').length;
  return {
    priceEls,
    dateEls,
    counts: {
      h1: $('h1').length,
      headings: $('h1, h2, h3').length,
      images: $(IMAGES)
        .toArray()
        .filter((img) => $(img).closest(CHROME).length === 0).length,
      tables: $('table').filter((_, t) => $(t).find('tr').length >= 2).length,
      forms: $('form').length,
      formFields: $('form').find('input:not([type="hidden"]), select, textarea').length,
      prices: priceEls.length,
      dates: dateEls.length,
      navLinks,
      paragraphs: paragraphs.length,
      paragraphChars: paragraphs.reduce((n, t) => n + t.length, 0),
      codeBlocks: $('pre').length,
      articles: $('article').length,
    },
  };
}

/** The counted elements, as the analysis reports them (kinds not on the page are left out). */
export function describeElements($: CheerioAPI, found: ReturnType<typeof countPage>): DetectedElement[] {
  const { counts, priceEls, dateEls } = found;
  const firstH1 = $('h1').first().text().replace(/\s+/g, ' ').trim().slice(0, 80);
  const out: DetectedElement[] = [
    el(
      'headings',
      'heading',
      counts.headings,
      `h1, h2, h3 headings${firstH1 ? `; the h1 reads "${firstH1}"` : ''}`,
    ),
    el('content images', 'image', counts.images, `img elements outside nav, header and footer (${IMAGES})`),
    el('data tables', 'table', counts.tables, 'table elements with at least two rows (table)'),
    el('forms', 'form', counts.forms, `form elements with ${counts.formFields} visible fields (form)`),
    el(
      'prices',
      'price',
      counts.prices,
      `texts that look like prices, e.g. "${firstMatch($, priceEls, PRICE)}" (${commonSignature(priceEls)})`,
    ),
    el(
      'dates',
      'date',
      counts.dates,
      `time elements and date-looking texts (${commonSignature(dateEls) || 'time'})`,
    ),
    el(
      'navigation links',
      'navigation',
      counts.navLinks,
      `links in the site menu (${$('nav a[href]').length ? 'nav a[href]' : 'header a[href]'})`,
    ),
    el(
      'text blocks',
      'text_block',
      counts.paragraphs,
      `paragraphs of at least ${TEXT_BLOCK_CHARS} characters (p)`,
    ),
  ];
  return out.filter((e) => e.count > 0);
}

function el(name: string, type: ElementType, count: number, description: string): DetectedElement {
  return { name, type, count, description };
}

function firstMatch($: CheerioAPI, els: Element[], pattern: RegExp): string {
  const text = els[0] ? $(els[0]).text().replace(/\s+/g, ' ').trim() : '';
  return (pattern.exec(text)?.[0] ?? text).slice(0, 40);
}
