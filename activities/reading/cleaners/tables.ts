// Markdown tables have no spans: a cell spanning n columns becomes itself plus n-1 empty cells, so every
// row keeps its columns under the right headings.
import type { CheerioAPI } from 'cheerio';
import type { ChildNode } from 'domhandler';

const MAX_SPAN = 50;

export function expandColspans($: CheerioAPI) {
  $('th[colspan], td[colspan]').each((_, element) => {
    const $cell = $(element);
    const span = Math.min(Number.parseInt($cell.attr('colspan') ?? '1', 10) || 1, MAX_SPAN);
    $cell.removeAttr('colspan');
    const tag = element.tagName;
    for (let i = 1; i < span; i++) $cell.after(`<${tag}></${tag}>`);
  });
}

/**
 * Text and comments directly inside a row (between its cells) say nothing, and the GFM plugin reads a row's
 * child nodes as its cells: a text node there made it throw on tables without a heading row.
 */
export function dropRowText($: CheerioAPI) {
  // One pass over each row's children: cheerio's remove() splices node by node, quadratic on big tables.
  for (const row of $('tr').toArray()) {
    const cells = row.children.filter((node) => node.type !== 'text' && node.type !== 'comment');
    if (cells.length === row.children.length) continue;
    const kept = new Set<ChildNode>(cells);
    for (const node of row.children) if (!kept.has(node)) node.parent = null;
    row.children = cells;
    cells.forEach((cell, i) => {
      cell.prev = cells[i - 1] ?? null;
      cell.next = cells[i + 1] ?? null;
    });
  }
}
