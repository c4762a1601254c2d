// Where the service's own files are, whether it runs from its TypeScript sources (tsx) or from the process
// bundles the set-up builds into dist/node (plain node, without a TypeScript loader in every thread). In a
// bundle, import.meta.url names the bundle, not the source file, so paths are taken from the checkout's root.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const __BUNDLED__: boolean | undefined;

/** True in a process bundle (scripts/build-processes.ts defines it), false under tsx. */
export const BUNDLED = typeof __BUNDLED__ !== 'undefined' && __BUNDLED__;

/** The checkout's root: the nearest folder above this module (or its bundle) holding package.json. */
export const ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
})();

/** Where the process bundles are. */
export const BUNDLES_DIR = join(ROOT, 'dist', 'node');

/** A file of the checkout, by its path from the root. */
export const sourcePath = (path: string) => join(ROOT, path);

/** A module a thread or child loads: its bundle (`bundle`, in dist/node) in a bundled process, else its source. */
export const moduleEntry = (source: string, bundle: string) =>
  BUNDLED ? join(BUNDLES_DIR, bundle) : join(ROOT, source);
