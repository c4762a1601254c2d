// The worker as its own process for a benchmark, configured like the bench's service (same database,
// Temporal and task queue), with activity slots for `concurrency` pages of one tenant.
// BENCH_CPU_PROF=dir writes a V8 CPU profile of it there (open it in Chrome DevTools); BENCH_DB_COUNTS=file
// has it count its database commands into that file (bench/count-commands.mjs).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { workerEnv, workerNodeArgs } from '../scripts/lib/processes.js';
import type { Config } from '../shared/config.js';
import { BUNDLES_DIR, ROOT } from '../shared/runtime-paths.js';

export function spawnBenchWorker(
  config: Config,
  concurrency: number,
): { worker: ChildProcess; polling: Promise<void> } {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) if (v !== undefined) env[k] = String(v);
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const counts = process.env.BENCH_DB_COUNTS ? ['--import', join(ROOT, 'bench', 'count-commands.mjs')] : [];
  // As npm start runs it: its bundle with plain node (BENCH_SOURCES=1: the sources through tsx).
  const entry =
    process.env.BENCH_SOURCES === '1' || !existsSync(join(BUNDLES_DIR, 'worker.mjs'))
      ? ['--import', 'tsx', 'worker/main.ts']
      : [join(BUNDLES_DIR, 'worker.mjs')];
  const worker = spawn(process.execPath, [...profile, ...counts, ...workerNodeArgs(), ...entry], {
    env: {
      ...process.env,
      ...workerEnv(),
      ...env,
      LOG_LEVEL: 'info',
      WORKER_MAX_ACTIVITIES: String(Math.max(20, concurrency * 2)),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Start-up (bundling the workflows) is not part of a run: `polling` waits for the worker's "polling" line.
  const polling = new Promise<void>((resolve, reject) => {
    let seen = '';
    worker.stderr?.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      if (seen.includes('worker polling')) resolve();
    });
    worker.once('exit', (code) => reject(new Error(`the worker exited (${code}): ${seen}`)));
  });
  return { worker, polling };
}
