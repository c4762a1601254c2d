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
/** A line's tokens without a list marker or step number in front ("- ", "3. ", "Step 3:"). */
export const lineTokens = (line: string): string =>
  tokenText(line.replace(LIST_MARKER, '').replace(STEP_NUMBER, ''));

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
