// Expected snippets and texts from Go test sources: trafilatura's evaluation data as its Go port ships it (a Go map
// literal, scripts/comparison/data.go, giving for each page file the snippets its main text must hold ("With")
// and must not hold ("Without")), its real-world tests' asserts, and GoOse's expected texts.
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

export function readSnippets(source: string): { file: string; url: string; snippets: Snippets }[] {
  // The split's capture keeps each entry's key (the page's URL) before the entry.
  const parts = source.split(/\n\t"([^\n]*)": \{\n/);
  return parts
    .slice(1)
    .filter((_, index) => index % 2 === 1)
    .map((entry, index) => ({
      file: unquote(/\bFile:\s*"((?:[^"\\]|\\.)*)"/.exec(entry)?.[1] ?? ''),
      url: unquote(parts[2 * index + 1]!),
      snippets: { with: stringList(entry, 'With'), without: stringList(entry, 'Without') },
    }))
    .filter(({ file, snippets }) => file && snippets.with.length + snippets.without.length > 0);
}

/** Go test asserts as go-trafilatura's real-world test writes them, one a line. */
const PAGE_CALL = /^\s*result = extractMockFile\(rwMockFiles, "([^"]*)"/;
const ASSERT = /^\s*assert\.(True|False)\(t, resContains\(result, "((?:[^"\\]|\\.)*)"\)\)/;
const MOCK_ENTRY = /^\s*"([^"]*)":\s*"([^"]*)",/;

/**
 * trafilatura's real-world tests as its Go port ships them: realworld_test.go extracts each page (named by
 * URL, mapped to a file in realworld-mock_test.go) and asserts the main text holds ("True") or does not hold
 * ("False") a snippet. Commented-out asserts are skipped; a page asserted in two places gets both lists.
 */
export function readRealworldSnippets(
  testSource: string,
  mockSource: string,
): { file: string; url: string; snippets: Snippets }[] {
  const files = new Map<string, string>();
  for (const line of mockSource.split('\n')) {
    const entry = MOCK_ENTRY.exec(line);
    if (entry) files.set(entry[1]!, entry[2]!);
  }
  const pages = new Map<string, Snippets>();
  const urls = new Map<string, string>();
  let current: Snippets | undefined;
  for (const line of testSource.split('\n')) {
    const call = PAGE_CALL.exec(line);
    if (call) {
      const file = files.get(call[1]!);
      current = file ? (pages.get(file) ?? { with: [], without: [] }) : undefined;
      if (file && current) pages.set(file, current);
      if (file && !urls.has(file)) urls.set(file, call[1]!);
      continue;
    }
    const assert = ASSERT.exec(line);
    if (assert && current) current[assert[1] === 'True' ? 'with' : 'without'].push(unquote(assert[2]!));
  }
  return [...pages]
    .filter(([, snippets]) => snippets.with.length + snippets.without.length > 0)
    .map(([file, snippets]) => ({ file, url: urls.get(file)!, snippets }));
}

/**
 * GoOse's test expectations (crawler_test.go): each test's Article literal names the page by Domain
 * (sites/<domain>.html) and gives the CleanedText GoOse extracts from it.
 */
export function readGooseTexts(source: string): { domain: string; text: string }[] {
  return source
    .split(/\bArticle\{\n/)
    .slice(1)
    .map((entry) => ({
      domain: unquote(/\bDomain:\s*"((?:[^"\\]|\\.)*)"/.exec(entry)?.[1] ?? ''),
      text: unquote(/\bCleanedText:\s*"((?:[^"\\]|\\.)*)"/.exec(entry)?.[1] ?? ''),
    }))
    .filter(({ domain }) => domain !== '');
}
