// Scoring for the cleaner bench: body text as a bag of word tokens (scripts written without spaces count a
// token per character, so Chinese or Thai pages weigh like the others), token F1 / precision / recall
// against the expected text, and model tokens (cl100k) for the share of the raw page a chain sends.
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { compile } from 'html-to-text';

const UNSPACED =
  /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}])/gu;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().replace(UNSPACED, ' $1 ').match(WORD) ?? [];
}

function bag(tokens: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

export interface Overlap {
  precision: number;
  recall: number;
  f1: number;
}

/** Multiset overlap of the two texts' word tokens (what article-extraction benchmarks score). */
export function overlap(got: string, expected: string): Overlap {
  const gotBag = bag(words(got));
  const expectedTokens = words(expected);
  let common = 0;
  for (const [token, count] of bag(expectedTokens)) common += Math.min(count, gotBag.get(token) ?? 0);
  const gotCount = [...gotBag.values()].reduce((a, b) => a + b, 0);
  const precision = gotCount === 0 ? 0 : common / gotCount;
  const recall = expectedTokens.length === 0 ? 1 : common / expectedTokens.length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

const toText = compile({
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
  ],
});

/** The visible text of HTML (the expected content of Readability's test pages, an html chain's output). */
export const htmlText = (html: string): string => toText(html);

export const modelTokens = (text: string): number => countTokens(text);

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

export interface Snippets {
  with: string[];
  without: string[];
}

export interface SnippetCounts {
  found: number;
  missed: number;
  leaked: number;
  dropped: number;
}

/** Snippets as word sequences in the body: "with" ones found or missed, "without" ones leaked or dropped. */
export function snippetCounts(body: string, snippets: Snippets): SnippetCounts {
  const text = ` ${words(body).join(' ')} `;
  const present = (snippet: string) => {
    const sequence = words(snippet).join(' ');
    // Not bounded by word ends: some snippets start or end inside a word ("or the first time").
    return sequence !== '' && text.includes(sequence);
  };
  const found = snippets.with.filter(present).length;
  const leaked = snippets.without.filter(present).length;
  return { found, missed: snippets.with.length - found, leaked, dropped: snippets.without.length - leaked };
}
