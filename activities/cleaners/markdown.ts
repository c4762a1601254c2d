// HTML to Markdown with turndown and the GitHub-flavoured plugin (tables, strikethrough, task lists).
// Page noise is already gone (document.ts); this step only converts.
import { gfm } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  service.use(gfm);
  return service;
}

const service = createService();

// The plugin keeps tables it cannot express in Markdown (lists or code in cells) as HTML inside a
// wrapper div meant for Joplin's editor; the table alone says the same in fewer tokens.
const TABLE_WRAPPER = /<div class="joplin-table-wrapper">(<table[\s\S]*?<\/table>)<\/div>(?=\n|$)/g;

export function htmlToMarkdown(html: string): string {
  return (
    service
      .turndown(html)
      .replace(TABLE_WRAPPER, '$1')
      // Runs of blank lines, including the whitespace-only ones turndown leaves for <br>, become one.
      .replace(/\n(?:[ \t]*\n){2,}/g, '\n\n')
      .trim()
  );
}
