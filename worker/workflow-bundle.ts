// The workflow bundle the worker runs: built once per version of the workflow code, in a child process, and
// cached on disk. Bundling (webpack) inside the worker would keep ~100 MB of the worker's memory for its
// whole life and cost every worker start, test workers included, several seconds.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { ROOT, sourcePath } from '../shared/runtime-paths.js';

/** The workflows the worker registers (and replay and workflow tests bundle). */
export const WORKFLOWS_PATH = sourcePath('workflows/index.ts');

/**
 * Everything a workflow bundle can contain: workflow code, the shared files it imports, installed packages
 * (the interceptor modules are added by bundleKey).
 */
const SOURCES = ['workflows', 'shared', 'package-lock.json'];

function sourceFiles(path: string): string[] {
  const full = resolve(ROOT, path);
  if (!existsSync(full)) return [];
  if (!full.endsWith('.ts') && !full.endsWith('.json')) {
    return readdirSync(full, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(full, f));
  }
  return [full];
}

/** A digest of the workflow code and the interceptor modules: the bundle's cache key. */
export function bundleKey(interceptorModules: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(sourceFiles).sort()) {
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  // The modules themselves too (ours are read; a package's is covered by package-lock.json).
  for (const m of interceptorModules) {
    hash.update(relative(ROOT, m)).update('\0');
    if (m.startsWith(ROOT) && existsSync(m)) hash.update(readFileSync(m)).update('\0');
  }
  return hash.digest('hex').slice(0, 24);
}

/** The per-user cache, or the system's temporary folder where the home folder cannot be written. */
function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const dir = join(base, 'extract-service', 'workflow-bundles');
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    const fallback = join(tmpdir(), 'extract-service-workflow-bundles');
    mkdirSync(fallback, { recursive: true });
    return fallback;
  }
}

/**
 * The path of a bundle of `workflowsPath` with the interceptor modules, built by a child process when the
 * cache has none for this code. Concurrent builders are safe: each writes a temporary file and renames it.
 */
export async function workflowBundlePath(
  workflowsPath: string,
  interceptorModules: readonly string[],
): Promise<string> {
  const dir = cacheDir();
  const path = join(dir, `${bundleKey(interceptorModules)}.js`);
  if (existsSync(path)) return path;
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  const script = sourcePath('worker/bundle-workflows.ts');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, temporary, workflowsPath, ...interceptorModules],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-8192);
  });
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0 || !existsSync(temporary)) {
    throw new Error(`bundling the workflows failed (exit ${code}): ${errors}`);
  }
  renameSync(temporary, path);
  return path;
}

/** Writes a bundle in this process (the child's side; the replay tool bundles in process). */
export async function writeBundle(out: string, workflowsPath: string, interceptorModules: string[]) {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: interceptorModules,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
  });
  writeFileSync(out, code);
}
