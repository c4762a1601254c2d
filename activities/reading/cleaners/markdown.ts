// HTML to Markdown with turndown and the GitHub-flavoured plugin (tables, strikethrough, task lists).
// Page noise is already gone (document.ts); this step only converts.
import { gfm } from '@joplin/turndown-plugin-gfm';
import { createDocument } from '@mixmark-io/domino';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode } from 'domhandler';
import TurndownService from 'turndown';
import { bodyHtml } from './document.js';
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

export function htmlToMarkdown(html: string | HTMLElement): string {
  // The plugin keeps tables it cannot express in Markdown (lists or code in cells) as HTML inside a wrapper
  // div meant for Joplin's editor; the table alone says the same in fewer tokens. Runs of blank lines,
  // including the whitespace-only ones turndown leaves for <br>, become one.
  return collapseBlankLines(unwrapTables(service.turndown(html))).trim();
}

/**
 * The cleaned document's body in Markdown. Turndown reads a DOM (domino's): given the body as HTML it parses
 * it again, which took about 40% of its time on real pages. The body is copied into turndown's own DOM
 * instead, node by node, as the parser would build it from the body's HTML (adjacent text merged into one
 * node, no empty text). A name the DOM refuses (an attribute such as `@click`, which HTML's parser takes)
 * sends the page the way it went before: through its HTML.
 */
export function documentToMarkdown($: CheerioAPI): string {
  let root: HTMLElement;
  try {
    root = turndownDocument.createElement('x-turndown');
    copyInto(root, $('body').contents().toArray());
  } catch {
    return htmlToMarkdown(bodyHtml($));
  }
  return htmlToMarkdown(root);
}

/** Turndown's own DOM implementation (the version it depends on), so both build the same nodes. */
const turndownDocument = createDocument('');

/** Copies cheerio's nodes under `parent` (a walk with its own stack: pages nest deeper than the call stack). */
function copyInto(parent: Node, nodes: AnyNode[]): void {
  const stack: { parent: Node; nodes: AnyNode[]; next: number; text: Text | null }[] = [
    { parent, nodes, next: 0, text: null },
  ];
  while (stack.length > 0) {
    const top = stack.at(-1)!;
    const node = top.nodes[top.next++];
    if (!node) {
      stack.pop();
      continue;
    }
    if (node.type === 'text') {
      if (!node.data) continue;
      if (top.text) top.text.appendData(node.data);
      else top.text = top.parent.appendChild(turndownDocument.createTextNode(node.data));
      continue;
    }
    top.text = null;
    if (node.type === 'comment') top.parent.appendChild(turndownDocument.createComment(node.data));
    else if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const element = turndownDocument.createElementNS(node.namespace ?? null, node.name);
      for (const [name, value] of Object.entries(node.attribs)) element.setAttribute(name, value);
      top.parent.appendChild(element);
      stack.push({ parent: element, nodes: node.children, next: 0, text: null });
    }
  }
}
