// Child processes of the local stack: their output on this process's stderr line by line (JSON log lines
// as they are, so they stay machine-readable; other lines prefixed with the child's name), stopped together.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BUNDLES_DIR } from '../../shared/runtime-paths.js';

export interface Child {
  name: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The bundle of the worker or the API process (scripts/build-processes.ts, built by the set-up), run with plain
 * node: no TypeScript loader in the process or its threads.
 */
export function processBundle(name: 'worker' | 'api'): string {
  const path = join(BUNDLES_DIR, `${name}.mjs`);
  if (!existsSync(path)) throw new Error(`${path} is missing: run node scripts/setup.mjs (it builds it)`);
  return path;
}

/**
 * Node options of the worker process: a bounded V8 heap (WORKER_HEAP_MB, default 384) and small young
 * generations (WORKER_SEMI_SPACE_MB, default 4, for every isolate: the main thread, the HTML threads and
 * Temporal's workflow thread). With the default heap limit (a quarter of the machine's memory) V8 collects
 * lazily and a long crawl's worker grows past 750 MB of RSS. With V8's default 16 MB semi-spaces the worker
 * peaked at 467 MB through bench:crawl's 500 pages; with 4 MB at 385 MB, at the same pages/s and CPU a page.
 */
export function workerNodeArgs(): string[] {
  return [
    `--max-old-space-size=${Number(process.env.WORKER_HEAP_MB ?? 384)}`,
    `--max-semi-space-size=${Number(process.env.WORKER_SEMI_SPACE_MB ?? 4)}`,
  ];
}

/**
 * Environment of the worker process: at most two glibc malloc arenas (MALLOC_ARENA_MAX, default 2). The
 * worker's native memory (Temporal's core, the HTML threads, the database driver) is allocated from many
 * threads, and glibc gives each its own arena, which keeps freed memory: through bench:crawl's 10,000 pages
 * the worker held ~90 MB in them and peaked at 439 MB of RSS; with two arenas at 398 MB.
 */
export function workerEnv(): Record<string, string> {
  return { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
}

export function startChild(
  name: string,
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; quiet?: boolean; cwd?: string } = {},
): Child {
  const proc = spawn(command, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  const forward = (line: string) => {
    if (opts.quiet || !line.trim()) return;
    process.stderr.write(line.startsWith('{') ? `${line}\n` : `[${name}] ${line}\n`);
  };
  for (const stream of [proc.stdout, proc.stderr]) {
    if (stream) createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', forward);
  }
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    name,
    proc,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function waitForPort(
  port: number,
  host = '127.0.0.1',
  timeoutMs = 60_000,
  child?: Child,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.proc.exitCode !== null)
      throw new Error(`${child.name} exited with code ${child.proc.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${host}:${port}`);
}
