// Line tidying after a conversion, in one pass over the lines: the regexes it replaces (`\s+$` over the whole
// text, a lazy scan per table wrapper) backtrack quadratically on hostile pages (a <pre> of spaces, thousands
// of unclosed wrappers), which a 5 MiB page turns into minutes of a blocked thread.

const BLANK = /^[ \t]*$/;

/**
 * Two or more whitespace-only lines in a row become one empty line (what `\n(?:[ \t]*\n){2,}` → `\n\n` did;
 * a single blank line stays as it is). The last line, which no line break ends, never counts as blank.
 */
export function collapseBlankLines(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [lines[0]!];
  let run: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (i < lines.length - 1 && BLANK.test(line)) {
      run.push(line);
      continue;
    }
    if (run.length >= 2) out.push('');
    else out.push(...run);
    run = [];
    out.push(line);
  }
  return out.join('\n');
}

const WRAPPER_OPEN = '<div class="joplin-table-wrapper">';
const TABLE_OPEN = '<table';
const WRAPPER_CLOSE = '</table></div>';

/** Where the first `</table></div>` at or after `from` that ends a line (or the text) starts; -1 if none. */
function wrapperEnd(text: string, from: number): number {
  for (let at = text.indexOf(WRAPPER_CLOSE, from); at !== -1; at = text.indexOf(WRAPPER_CLOSE, at + 1)) {
    const after = at + WRAPPER_CLOSE.length;
    if (after === text.length || text[after] === '\n') return at;
  }
  return -1;
}

/**
 * `<div class="joplin-table-wrapper"><table…</table></div>` at a line end becomes the table alone (what the
 * regex `<div class="joplin-table-wrapper">(<table[\s\S]*?<\/table>)<\/div>(?=\n|$)` did). Linear: the text
 * is scanned once, since each search for an end starts past the previous match.
 */
export function unwrapTables(text: string): string {
  let out = '';
  let copied = 0;
  for (
    let open = text.indexOf(WRAPPER_OPEN + TABLE_OPEN);
    open !== -1;
    open = text.indexOf(WRAPPER_OPEN + TABLE_OPEN, copied)
  ) {
    const table = open + WRAPPER_OPEN.length;
    const end = wrapperEnd(text, table + TABLE_OPEN.length);
    if (end === -1) break; // no later wrapper can end either
    out += text.slice(copied, open) + text.slice(table, end + '</table>'.length);
    copied = end + WRAPPER_CLOSE.length;
  }
  return out + text.slice(copied);
}
