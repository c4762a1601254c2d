// The repository's import graph, read from its sources (static, `export … from` and dynamic imports; type
// imports count too): no file imports itself through others, and activities/ stands in layers, counting
// also the `new URL('./x', import.meta.url)` entry files of threads and child processes (an entry that
// imports its spawner back is another process, not a circle). Its concern folders, bottom first; a folder
// imports only from the layers below it (peers on one layer not from each other) and from shared/, and
// only activities/index.ts, which registers the activities with the worker, stands above them all:
//
//   common      activity context, failure, tenant share, the stores every activity may read
//   reading     the HTML pool and what its threads run: cleaners, structured data, learned extractors,
//               page signals, page structure
//   fetching    fetch modes, browser, document readers, robots.txt, site sessions; ActivityDeps
//   extraction  the page pipeline over its ports; the model step: chains, dialogue, budgets, a page's
//               result; the extract job's page
//   crawl, analyze, delivery   the crawl job's page pipeline, pages, frontier and map; analyze; webhooks and
//               monitor runs
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROCESS_ENTRIES } from '../../scripts/build-processes.js';

const LAYERS: readonly (readonly string[])[] = [
  ['common'],
  ['reading'],
  ['fetching'],
  ['extraction'],
  ['crawl', 'analyze', 'delivery'],
];
/** The repository's own code, with its tests; fixtures and generated clients are data. */
const ROOTS = [
  'activities',
  'api',
  'bench',
  'clients/cli',
  'scripts',
  'shared',
  'temporal-config',
  'test',
  'worker',
  'workflows',
];
const SKIP = /(^|\/)(node_modules|fixtures|histories|results|data)(\/|$)/;

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourcesUnder(dir: string): string[] {
  if (!existsSync(join(repo, dir))) return [];
  return readdirSync(join(repo, dir), { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name).replaceAll('\\', '/'))
    .filter((file) => !SKIP.test(file) && /\.(ts|tsx|mts|mjs)$/.test(file) && !file.endsWith('.d.ts'))
    .filter((file) => statSync(join(repo, file)).isFile());
}

const IMPORTS = [
  /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gms,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
];
/** Entry files of threads and child processes: relative to the file, or from the root (shared/runtime-paths.ts). */
const ENTRIES = [/new URL\(\s*['"](\.[^'"]+)['"]\s*,\s*import\.meta\.url/g];
const ROOT_ENTRIES = [/\b(?:moduleEntry|sourcePath)\(\s*['"]([^'"]+)['"]/g];

/**
 * The repository files that `file` names: relative specifiers (`.js` names the `.ts`), and paths from the
 * checkout's root.
 */
function named(file: string, patterns: RegExp[], fromRoot = false): string[] {
  const text = readFileSync(join(repo, file), 'utf8');
  const found = new Set<string>();
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const spec = match[1] ?? '';
      if (!fromRoot && !spec.startsWith('.')) continue;
      const target = relative(repo, resolve(repo, fromRoot ? '.' : dirname(file), spec)).replaceAll(
        '\\',
        '/',
      );
      const named = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx')].find(
        (candidate) => existsSync(join(repo, candidate)) && statSync(join(repo, candidate)).isFile(),
      );
      if (named) found.add(named);
    }
  }
  return [...found];
}

const files = ROOTS.flatMap(sourcesUnder);
const graph = new Map(files.map((file) => [file, named(file, IMPORTS)] as const));
/** Imports and the entry files of threads and child processes a file starts. */
const uses = new Map(
  files.map(
    (file) =>
      [
        file,
        [...(graph.get(file) ?? []), ...named(file, ENTRIES), ...named(file, ROOT_ENTRIES, true)],
      ] as const,
  ),
);

/** Groups of files that import each other in a loop (Tarjan's strongly connected components). */
function circles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || edges.get(node)?.includes(node)) found.push(group.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The layer of an activities/ file: its concern folder's place in LAYERS; the top for index.ts. */
function layerOf(file: string): { concern: string; rank: number } {
  const [, concern = ''] = file.split('/');
  if (file === 'activities/index.ts') return { concern: 'index', rank: LAYERS.length };
  const rank = LAYERS.findIndex((layer) => layer.includes(concern));
  return { concern, rank };
}

test('the import graph finds the imports it must see', () => {
  // A scan that reads nothing would pass everything below.
  assert.ok(graph.size > 400, `only ${graph.size} files read`);
  assert.ok(graph.get('activities/index.ts')?.includes('activities/crawl/crawl-pages.ts'));
  const pool = uses.get('activities/reading/html-pool/pool.ts') ?? [];
  assert.ok(pool.includes('activities/reading/html-pool/tasks.ts'), 'the pool names its thread entry');
  const reader = uses.get('activities/fetching/documents/reader-process.ts') ?? [];
  assert.ok(reader.includes('activities/fetching/documents/reader-boot.mjs'), 'the child process entry');
  assert.deepEqual(
    circles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ).map((g) => g.join(' ')),
    ['a b c'],
  );
});

test('every process bundle names a file that exists (a moved entry is not silently left behind)', () => {
  const missing = Object.values(PROCESS_ENTRIES).filter((path) => !existsSync(join(repo, path)));
  assert.deepEqual(missing, []);
});

test('no file of the repository imports itself through others', () => {
  assert.deepEqual(circles(graph), []);
});

test('activities/ holds index.ts and its concern folders only', () => {
  const entries = readdirSync(join(repo, 'activities'));
  const strays = entries.filter((name) => name !== 'index.ts' && !LAYERS.flat().includes(name));
  assert.deepEqual(strays, [], 'a new file or folder of activities/ takes its place in a layer');
});

test('activities/ imports only downward: from a lower concern, never a peer or a higher one', () => {
  const upward: string[] = [];
  for (const [file, imports] of uses) {
    if (!file.startsWith('activities/')) continue;
    const from = layerOf(file);
    for (const target of imports) {
      if (!target.startsWith('activities/')) {
        if (!target.startsWith('shared/'))
          upward.push(`${file} -> ${target} (activities/ uses shared/ alone)`);
        continue;
      }
      const to = layerOf(target);
      if (to.concern === from.concern) continue;
      if (to.rank >= from.rank)
        upward.push(`${file} -> ${target} (${from.concern} may not import ${to.concern})`);
    }
  }
  assert.deepEqual(upward, []);
});

test('shared/ imports nothing of the code above it', () => {
  const above = [...uses].flatMap(([file, imports]) =>
    file.startsWith('shared/')
      ? imports.filter((target) => !target.startsWith('shared/')).map((target) => `${file} -> ${target}`)
      : [],
  );
  assert.deepEqual(above, []);
});
