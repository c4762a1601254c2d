// Bundles the service's processes into dist/node with esbuild: the worker, the API, the worker's HTML threads
// and its document reader child, each one plain ES module with the packages left as imports. `npm start` runs
// them with plain node, so no process or thread carries a TypeScript loader and its transformed sources (about
// 75 MB in the worker's main thread and 45 MB in each HTML thread, measured). The set-up and `npm start`
// rebuild them when the sources changed; the tests run the sources through tsx. Paths to the checkout's own
// files go through shared/runtime-paths.ts.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BUNDLES_DIR, ROOT, sourcePath } from '../shared/runtime-paths.js';

export const PROCESS_ENTRIES = {
  worker: 'worker/main.ts',
  api: 'api/main.ts',
  'html-tasks': 'activities/html-pool/tasks.ts',
  'document-reader': 'activities/documents/reader-bundle.mjs',
} as const;

/** Folders whose modules the bundles are made of, and the files that decide how they are built. */
const SOURCE_DIRS = ['api', 'activities', 'shared', 'worker', 'workflows'];
const BUILD_FILES = ['scripts/build-processes.ts', 'package-lock.json', 'tsconfig.json'];
const MARKER = join(BUNDLES_DIR, '.sources-hash');

function sourcesDigest(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', 'web'].includes(entry.name)) walk(path);
      } else if (/\.(ts|mjs|js|json)$/.test(entry.name)) hash.update(path).update(readFileSync(path));
    }
  };
  for (const dir of SOURCE_DIRS) walk(join(ROOT, dir));
  for (const file of BUILD_FILES) hash.update(readFileSync(join(ROOT, file)));
  return hash.digest('hex');
}

export async function buildProcesses(outDir = BUNDLES_DIR): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(
      Object.entries(PROCESS_ENTRIES).map(([name, path]) => [name, sourcePath(path)]),
    ),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    define: { __BUNDLED__: 'true' },
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/** Builds the bundles unless those in dist/node were built from the sources as they are now. */
export async function ensureProcessBundles(): Promise<boolean> {
  const digest = sourcesDigest();
  if (existsSync(MARKER) && readFileSync(MARKER, 'utf8') === digest) return false;
  await buildProcesses();
  writeFileSync(MARKER, digest);
  return true;
}

if (process.argv[1]?.endsWith('build-processes.ts')) {
  if (await ensureProcessBundles())
    process.stderr.write(`[build] process bundles written to ${BUNDLES_DIR}\n`);
}
