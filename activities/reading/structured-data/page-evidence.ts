// What the visible page shows, prepared once per page for every field's check: its words and numbers as
// tokens, its text folded for scripts without spaces, and every number it shows in any common spelling.
import { type Byline, bylineNames, markedBylines, pageBylines } from './bylines.js';
import { imageKey, pageImages } from './images.js';
import { pageNumbers } from './numbers.js';
import type { BuyButton } from './page-labels.js';
import { lineTokens, type PageLine, pageLines, sameAmounts } from './page-lines.js';
import type { PageTime } from './page-times.js';
import { foldText, SPACELESS, tokenText } from './text.js';

export interface PageEvidence {
  /** The page's words and numbers (see tokenText), padded by a space at each end. */
  tokens: string;
  /** Each line's tokens (list markers off), one line each, with a line break at each end. */
  lines: string;
  lineList: PageLine[];
  /** Case and whitespace folded, for scripts written without spaces. */
  folded: string;
  numbers: Set<number>;
  /** The files of the images the page shows (see images.ts). */
  images: Set<string>;
  /** Buttons and stock badges the cleaned text leaves out (tokens, padded): availability evidence only. */
  labels: string[];
  /** The page's buy buttons, their labels as tokens (padded). */
  buy: BuyButton[];
  /** Prices the page strikes through or marks as old: list prices. */
  struck: Set<number>;
  /** The numbers the page's price elements show (empty: the page marks none). */
  prices: Set<number>;
  /** The page's text as shown (markdown escapes taken off), to quote a value in the page's own spelling. */
  text: string;
  /** What follows the page's byline labels ("By …", "Author: …"), as tokens (bylines.ts). */
  bylines: Byline[];
  /**
   * The bylines of its author and byline elements (markedBylines): they confirm a name, but a page whose only
   * such elements are its comments' or related posts' asks nothing of the structured author.
   */
  marked: Byline[];
  /** The texts of the page's author and byline elements, as shown. */
  authorLabels: string[];
  /** The page's `<time datetime>` elements (page-times.ts). */
  times: PageTime[];
  /** The texts of the page's `h1` elements as line tokens (page-lines.ts): its headline where cleaning lost it. */
  headings: string[];
}

/** What the page item (page-labels.ts) holds; each part absent when the page has none. */
export interface PageLabels {
  labels?: unknown;
  buy?: unknown;
  struck?: unknown;
  prices?: unknown;
  /** The files the page's image elements show (image keys). */
  images?: unknown;
  times?: unknown;
  /** The short texts of the page's author and byline elements ("By Ann Lee", "Ann Lee published 2 May"). */
  authors?: unknown;
  /** The texts of its `h1` elements. */
  headings?: unknown;
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
const buttons = (v: unknown): BuyButton[] =>
  Array.isArray(v)
    ? v.filter((b): b is BuyButton => typeof b?.text === 'string' && typeof b?.disabled === 'boolean')
    : [];

/** The one number a struck label shows ("Was £25.00", "~~120,00 €~~"); none when it shows several. */
const onlyNumber = (label: string): number[] => {
  const found = [...pageNumbers(label)];
  return found.length === 1 ? found : [];
};

export function pageEvidence(pageText: string, labels: PageLabels = {}): PageEvidence {
  // Markdown escapes (\_, \*, \-) would split a value's words where the structured string has none.
  const text = pageText.replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1');
  const lines = pageLines(text);
  return {
    tokens: ` ${tokenText(text)} `,
    lines: `\n${lines.map((l) => l.tokens).join('\n')}\n`,
    lineList: lines,
    folded: foldText(text),
    numbers: pageNumbers(text),
    images: new Set([...pageImages(pageText), ...strings(labels.images)]),
    labels: strings(labels.labels).map((l) => ` ${tokenText(l)} `),
    buy: buttons(labels.buy).map((b) => ({ text: ` ${tokenText(b.text)} `, disabled: b.disabled })),
    struck: new Set(strings(labels.struck).flatMap(onlyNumber)),
    prices: new Set(strings(labels.prices).flatMap((p) => [...pageNumbers(p)])),
    text,
    bylines: pageBylines(text),
    marked: markedBylines(strings(labels.authors)),
    authorLabels: strings(labels.authors),
    times: Array.isArray(labels.times)
      ? labels.times.filter((t): t is PageTime => typeof t?.at === 'string' && typeof t?.update === 'boolean')
      : [],
    headings: strings(labels.headings).map(lineTokens),
  };
}

/** Whether the page shows a text: its words and numbers in this order, as whole tokens. */
export function showsText(page: PageEvidence, value: string): boolean {
  if (SPACELESS.test(value)) return showsFolded(page, foldText(value));
  return showsTokens(page, tokenText(value));
}

/** Whether the page shows a person's name: in its text or in one of its bylines (its author elements'). */
export const showsName = (page: PageEvidence, name: string): boolean =>
  showsText(page, name) || bylineNames([...page.bylines, ...page.marked], name, false);

/** Whether the page shows a phrase already in token form ("in stock", "2024 03 05"). */
export const showsTokens = (page: PageEvidence, tokens: string): boolean =>
  tokens.length > 0 && page.tokens.includes(` ${tokens} `);

export const showsNumber = (page: PageEvidence, n: number): boolean => page.numbers.has(n);

/** A spaceless-script text as a whole word: no letter or digit right before or after it ("焗饭" is not in "浓情焗饭"). */
function showsFolded(page: PageEvidence, folded: string): boolean {
  if (!folded) return false;
  const edge = /[\p{L}\p{N}]/u;
  for (let at = page.folded.indexOf(folded); at >= 0; at = page.folded.indexOf(folded, at + 1)) {
    const [before, after] = [page.folded[at - 1] ?? ' ', page.folded[at + folded.length] ?? ' '];
    if (!edge.test(before) || !edge.test(folded[0] as string)) {
      if (!edge.test(after) || !edge.test(folded.at(-1) as string)) return true;
    }
  }
  return false;
}

/** Whether a line of the page ends with this text's words. */
export function showsLineEnd(page: PageEvidence, text: string): boolean {
  const tokens = sameAmounts(tokenText(text));
  return tokens.length > 0 && (page.lines.includes(`\n${tokens}\n`) || page.lines.includes(` ${tokens}\n`));
}

/** Whether the page shows an image: that file at any size, or its URL in the text. */
export const showsImage = (page: PageEvidence, url: string): boolean =>
  page.images.has(imageKey(url)) || showsText(page, url);
