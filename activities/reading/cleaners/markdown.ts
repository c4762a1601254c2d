// HTML to Markdown with turndown and the GitHub-flavoured plugin (tables, strikethrough, task lists).
// Page noise is already gone (document.ts); this step only converts.
import { gfm } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import { collapseBlankLines, unwrapTables } from './lines.js';

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  service.use(gfm);
  readRowsOnce(service);
  return service;
}

interface TableNode extends HTMLElement {
  rows: HTMLCollectionOf<HTMLTableRowElement>;
}

/**
 * The plugin reads `table.rows` inside loops over rows and columns, and turndown's DOM (domino) walks the
 * whole table on every read: a table of a few thousand rows took minutes. Each table's rows are read once,
 * when its first row is converted (cells come before rows, rows before their table), and kept on the node.
 */
function readRowsOnce(service: TurndownService) {
  const rowRule = service.rules.array.find((rule) => rule.filter === 'tr');
  if (!rowRule) return;
  const convertRow = rowRule.replacement!;
  rowRule.replacement = (content, node, options) => {
    let table = node.parentNode;
    while (table && table.nodeName !== 'TABLE') table = table.parentNode;
    if (table && !Object.hasOwn(table, 'rows')) {
      const rows = Array.from((table as TableNode).rows);
      Object.defineProperty(table, 'rows', { value: rows });
    }
    return convertRow(content, node, options);
  };
}

const service = createService();

export function htmlToMarkdown(html: string): string {
  // The plugin keeps tables it cannot express in Markdown (lists or code in cells) as HTML inside a wrapper
  // div meant for Joplin's editor; the table alone says the same in fewer tokens. Runs of blank lines,
  // including the whitespace-only ones turndown leaves for <br>, become one.
  return collapseBlankLines(unwrapTables(service.turndown(html))).trim();
}
