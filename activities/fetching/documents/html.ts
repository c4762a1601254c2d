// The HTML a document becomes: what the cleaner chain reads as it reads a web page. Text is escaped here and
// only here; parts (pages, slides, sheets) are sections headed by their number or name.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"]/g, (c) => ESCAPES[c] ?? c);

/** One part of a document (a page, a slide, a sheet): `data-<kind>` holds its number or name. */
export const section = (kind: string, id: string | number, heading: string, body: string): string =>
  `<section data-${kind}="${escapeHtml(String(id))}"><h2>${escapeHtml(heading)}</h2>\n${body}</section>\n`;

export function documentHtml(title: string, body: string): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><article>\n${body}</article></body></html>`
  );
}

/** A table from rows of cell texts; the first row is the header row. */
export function tableHtml(rows: string[][]): string {
  const cells = (row: string[], tag: 'th' | 'td') =>
    `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join('')}</tr>`;
  const [head, ...body] = rows;
  if (!head) return '';
  return `<table><thead>${cells(head, 'th')}</thead><tbody>${body.map((r) => cells(r, 'td')).join('\n')}</tbody></table>\n`;
}
