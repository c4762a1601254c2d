// trafilatura's evaluation data as its Go port ships it: a Go map literal (scripts/comparison/data.go) giving
// for each page file the snippets its main text must hold ("With") and must not hold ("Without").
import type { Snippets } from './score.js';

const STRING = /"((?:[^"\\]|\\.)*)"/g;

/** Go interpreted string literals share JSON's escapes, except \x and octal ones (kept as they are). */
function unquote(literal: string): string {
  try {
    return JSON.parse(`"${literal}"`) as string;
  } catch {
    return literal;
  }
}

function stringList(entry: string, field: string): string[] {
  const start = entry.search(new RegExp(`\\b${field}:\\s*\\[\\]string\\{`));
  if (start === -1) return [];
  const list: string[] = [];
  const body = entry.slice(entry.indexOf('{', start) + 1);
  // Literals up to the closing brace that lies outside every literal.
  let at = 0;
  for (;;) {
    const rest = body.slice(at).trimStart();
    if (!rest.startsWith('"')) break;
    STRING.lastIndex = 0;
    const match = STRING.exec(rest)!;
    list.push(unquote(match[1]!));
    at = body.length - rest.length + match[0].length;
    at += body.slice(at).match(/^\s*,?/)![0].length;
  }
  return list;
}

export function readSnippets(source: string): { file: string; snippets: Snippets }[] {
  return source
    .split(/\n\t"[^\n]*": \{\n/)
    .slice(1)
    .map((entry) => ({
      file: unquote(/\bFile:\s*"((?:[^"\\]|\\.)*)"/.exec(entry)?.[1] ?? ''),
      snippets: { with: stringList(entry, 'With'), without: stringList(entry, 'Without') },
    }))
    .filter(({ file, snippets }) => file && snippets.with.length + snippets.without.length > 0);
}
