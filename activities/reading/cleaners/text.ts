// HTML to plain text with html-to-text: block structure kept as lines, no markup.
import { compile } from 'html-to-text';
import { collapseBlankLines } from './lines.js';

const headings = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  options: { uppercase: false },
}));

// Links and images that should go are already gone (document.ts); what is left is written out.
const convert = compile({
  wordwrap: false,
  selectors: [
    ...headings,
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
});

export function htmlToText(html: string): string {
  // trimEnd, not /\s+$/: that regex retries from every whitespace character, quadratic in a <pre> of spaces.
  return collapseBlankLines(convert(html)).replace(/^\n+/, '').trimEnd();
}
