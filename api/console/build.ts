// Bundles the console (api/console/web) into api/console/dist: one script, one style sheet and the page, with
// everything they use inside (no CDN: the console works offline). Run by scripts/setup.mjs, and by the console's
// tests; `tsx api/console/build.ts` rebuilds it by hand.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
export const CONSOLE_WEB_DIR = join(here, 'web');
export const CONSOLE_DIST_DIR = join(here, 'dist');

export async function buildConsole(outDir = CONSOLE_DIST_DIR): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { app: join(CONSOLE_WEB_DIR, 'main.tsx') },
    bundle: true,
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    outdir: outDir,
    logLevel: 'warning',
  });
  await copyFile(join(CONSOLE_WEB_DIR, 'style.css'), join(outDir, 'app.css'));
  await copyFile(join(CONSOLE_WEB_DIR, 'index.html'), join(outDir, 'index.html'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildConsole();
  process.stderr.write(`[console] built into ${CONSOLE_DIST_DIR}\n`);
}
