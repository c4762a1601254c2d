// `npm test` after setup: starts one embedded FerretDB + Temporal for the whole run, then runs every test
// file with Node's test runner. Each test file uses its own database and task queue on that stack.
//
// TEST_CONCURRENCY=N (default 2) runs N files at a time, then the files of SERIAL_FILES one at a time
// (TEST_CONCURRENCY=1: every file one at a time). TEST_TIMINGS=1 ends each phase with every file's wall and
// CPU time, most CPU first (scripts/lib/file-clock.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startInfra } from './lib/stack.js';

/**
 * Files that never run beside another: they restart Temporal or run `npm start` (its own stack, fixed
 * restart messages), stop worker processes and time the stop, compare namespace-wide counts, or hold CPU
 * work to a tight time (a fair share, linear time within seconds). Files that kill only a worker process of
 * their own and wait on conditions or bounds of tens of seconds (crawl/durability, security/html-limits,
 * security/regex) run beside others.
 */
const SERIAL_FILES = [
  'test/crawl/server-restart.test.ts',
  'test/durability/',
  'test/e2e/',
  'test/security/fairness.test.ts',
  'test/telemetry/metrics.test.ts',
  'test/unit/cleaners/linear.test.ts',
  'test/unit/crawl-links.test.ts',
];
const isSerial = (file: string) => SERIAL_FILES.some((s) => file.replaceAll('\\', '/').startsWith(s));
/** The longest files of the parallel phase (about 20 s and more), started first so none is left running alone. */
const LONG_FILES = [
  'test/api/openapi-conformance.test.ts',
  'test/security/links-bound.test.ts',
  'test/crawl/durability.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/crawl/crawl.test.ts',
  'test/analyze/analyze.test.ts',
  'test/crawl/continue-as-new.test.ts',
  'test/extract/learned-extractors.test.ts',
];
const longFirst = (a: string, b: string) =>
  Number(LONG_FILES.includes(b)) - Number(LONG_FILES.includes(a)) || a.localeCompare(b);

// Node 20's test runner takes no globs: find the test files here.
const named = process.argv.slice(2);
const files =
  named.length > 0
    ? named
    : readdirSync('test', { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.test.ts') && !f.startsWith('cluster/')) // test/cluster: npm run test:cluster
        .map((f) => join('test', f))
        .sort();
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2) || 2);
const phases: { files: string[]; concurrency: number }[] =
  concurrency === 1
    ? [{ files, concurrency: 1 }]
    : [
        { files: files.filter((f) => !isSerial(f)).sort(longFirst), concurrency },
        { files: files.filter(isSerial), concurrency: 1 },
      ];

const timings = process.env.TEST_TIMINGS
  ? join(mkdtempSync(join(tmpdir(), 'test-timings-')), 'files.jsonl')
  : null;

/** Each file's process time (wall from its start, CPU of the process), most CPU first; then clears them. */
function reportTimings(path: string) {
  if (!existsSync(path)) return;
  const rows = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { file: string; wallMs: number; cpuMs: number; code: number })
    .sort((a, b) => b.cpuMs - a.cpuMs);
  const sum = (key: 'wallMs' | 'cpuMs') => (rows.reduce((t, r) => t + r[key], 0) / 1000).toFixed(0);
  const lines = rows.map(
    (r) =>
      `[timings] ${(r.wallMs / 1000).toFixed(1).padStart(6)} s wall ${(r.cpuMs / 1000).toFixed(1).padStart(6)} s CPU  ` +
      `${relative(process.cwd(), r.file)}${r.code ? ` (exit ${r.code})` : ''}`,
  );
  process.stderr.write(
    `[timings] ${rows.length} files: ${sum('wallMs')} s wall, ${sum('cpuMs')} s CPU in all\n${lines.join('\n')}\n`,
  );
  rmSync(path);
}

const infra = await startInfra();
process.stderr.write(`[test] FerretDB ${infra.mongoUri}  Temporal ${infra.temporalAddress}\n`);
let running: ReturnType<typeof spawn> | null = null;
let stopped = false;
const stopChild = (signal: NodeJS.Signals) => {
  stopped = true;
  running?.kill(signal);
};
process.on('SIGINT', stopChild);
process.on('SIGTERM', stopChild);
let code = 0;
for (const phase of phases.filter((p) => p.files.length > 0)) {
  const started = Date.now();
  if (phases.length > 1)
    process.stderr.write(`[test] ${phase.files.length} files, ${phase.concurrency} at a time\n`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${phase.concurrency}`,
      ...(timings ? ['--import', './scripts/lib/file-clock.mjs'] : []),
      '--test-reporter=spec',
      ...phase.files,
    ],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_MONGODB_URI: infra.mongoUri,
        TEST_TEMPORAL_ADDRESS: infra.temporalAddress,
        ...(timings ? { TEST_TIMINGS_FILE: timings } : {}),
      },
    },
  );
  running = child;
  const exit = await new Promise<number>((resolve) =>
    child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))),
  );
  running = null;
  if (phases.length > 1)
    process.stderr.write(
      `[test] phase done in ${((Date.now() - started) / 1000).toFixed(0)} s, exit ${exit}\n`,
    );
  if (timings) reportTimings(timings);
  code ||= exit;
  if (stopped) break;
}
await infra.stop();
if (timings) rmSync(join(timings, '..'), { recursive: true, force: true });
process.exit(code);
