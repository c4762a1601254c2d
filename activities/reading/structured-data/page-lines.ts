// The page's text as lines of tokens, with what tells a list apart: whether a line is a markdown list item and
// whether it follows the previous one without a blank line.
import { tokenText } from './text.js';

export interface PageLine {
  tokens: string;
  /** A markdown list item ("- …", "3. …"). */
  item: boolean;
  /** Follows the previous line with no blank line between (the same block or list). */
  joined: boolean;
  /** A markdown heading ("# …"). */
  heading: boolean;
}

const LIST_MARKER = /^\s*(?:[-*+•]|\d+[.)])\s+/;
const STEP_NUMBER = /^\s*(?:step \d+:?|\d+:)\s*/i;
/**
 * A line's tokens without a list marker or step number in front ("- ", "3. ", "Step 3:"), amounts in one
 * spelling (sameAmounts).
 */
export const lineTokens = (line: string): string =>
  sameAmounts(tokenText(line.replace(LIST_MARKER, '').replace(STEP_NUMBER, '')));

const FRACTION = /(?<=^| )(?:(\d+) )?(\d+)\/(\d+)(?= |$)/g;
const DECIMAL_COMMA = /(?<=^| )(\d+),(\d{1,2})(?= |$)/g;

/**
 * Amounts in tokens in one spelling, as decimals: "1/4" (and "¼", which tokens spell so) and "0.25" alike,
 * "2 1/2" and "2,5" and "2.5" alike. A comma before three digits is a thousands separator and stays.
 */
export function sameAmounts(tokens: string): string {
  return tokens
    .replace(FRACTION, (all, whole: string | undefined, n: string, d: string) => {
      const [num, den] = [Number(n), Number(d)];
      if (den === 0 || (whole !== undefined && num >= den)) return all;
      return String(Number(((whole === undefined ? 0 : Number(whole)) + num / den).toFixed(3)));
    })
    .replace(DECIMAL_COMMA, '$1.$2');
}

export function pageLines(text: string): PageLine[] {
  const lines: PageLine[] = [];
  let blank = true;
  for (const raw of text.split('\n')) {
    const tokens = lineTokens(raw);
    if (!tokens) {
      blank ||= raw.trim() === '';
      continue;
    }
    lines.push({ tokens, item: LIST_MARKER.test(raw), joined: !blank, heading: /^\s*#{1,6}\s/.test(raw) });
    blank = false;
  }
  return lines;
}

const HEADING = /^\s*#{1,6}\s/;

/**
 * The lines around the page's headline, `before` lines before it and `after` after (its dateline, its byline),
 * and where the headline is among them. The headline is the first heading line that is one of the page's `h1`
 * texts (as line tokens), else its first heading line, else the top of the page.
 */
export function headlineWindow(text: string, h1s: string[], before: number, after: number) {
  const lines = text.split('\n').filter((l) => /[\p{L}\p{N}]/u.test(l));
  const headings = lines.map((l, i) => (HEADING.test(l) ? i : -1)).filter((i) => i >= 0);
  const at = headings.find((i) => h1s.includes(lineTokens(lines[i] as string))) ?? headings[0] ?? 0;
  const from = Math.max(0, at - before);
  return { lines: lines.slice(from, at + after + 1), headline: at - from };
}
