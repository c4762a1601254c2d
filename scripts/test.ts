// `npm test` after setup: starts one embedded FerretDB + Temporal for the whole run, then runs every test
// file with Node's test runner. Each test file uses its own database and task queue on that stack.
//
// TEST_CONCURRENCY=N (default 2) runs N files at a time with the SIDE_FILES one at a time beside them, then
// the files of SERIAL_FILES one at a time, alone (TEST_CONCURRENCY=1: every file one at a time). TEST_TIMINGS=1 ends each phase with every file's wall and
// CPU time, most CPU first (scripts/lib/file-clock.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startInfra } from './lib/stack.js';

/**
 * Files that never run beside another test file: they hold CPU work to a tight time (a fair share, linear
 * time within seconds) or compare namespace-wide counts. They run alone at the end.
 */
const SERIAL_FILES = [
  'test/integration/security/fairness.test.ts',
  'test/integration/telemetry/metrics.test.ts',
  'test/unit/cleaners/linear.test.ts',
  'test/unit/crawl-links.test.ts',
];
/**
 * Files that spend most of their time waiting (a restarted Temporal of their own, `npm start`'s own stack,
 * worker processes killed and stopped, back-offs) and use little CPU in their own process: one at a time, in
 * a lane of their own beside the other files, so their waits overlap the rest of the suite instead of adding
 * to it. Each starts its own processes; none changes the run's shared stack.
 */
const SIDE_FILES = [
  'test/integration/crawl/server-restart.test.ts',
  'test/integration/durability/',
  'test/integration/e2e/',
];
const among = (list: string[]) => (file: string) =>
  list.some((s) => file.replaceAll('\\', '/').startsWith(s));
const isSerial = among(SERIAL_FILES);
const isSide = among(SIDE_FILES);
/** The longest files of the parallel phase (about 20 s and more), started first so none is left running alone. */
const LONG_FILES = [
  'test/integration/api/openapi-conformance.test.ts',
  'test/integration/security/links-bound.test.ts',
  'test/integration/crawl/durability.test.ts',
  'test/integration/webhooks/delivery.test.ts',
  'test/integration/crawl/crawl.test.ts',
  'test/integration/analyze/analyze.test.ts',
  'test/integration/extract/learned-extractors.test.ts',
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
/** A phase runs its files `concurrency` at a time, and its `side` files one at a time beside them. */
interface Phase {
  files: string[];
  concurrency: number;
  side: string[];
}
const phases: Phase[] =
  concurrency === 1
    ? [{ files, concurrency: 1, side: [] }]
    : [
        {
          files: files.filter((f) => !isSerial(f) && !isSide(f)).sort(longFirst),
          concurrency,
          side: files.filter(isSide),
        },
        { files: files.filter(isSerial), concurrency: 1, side: [] },
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
const running = new Set<ReturnType<typeof spawn>>();
let stopped = false;
const stopChild = (signal: NodeJS.Signals) => {
  stopped = true;
  for (const child of running) child.kill(signal);
};
process.on('SIGINT', stopChild);
process.on('SIGTERM', stopChild);

/**
 * Runs files with Node's test runner. A side lane's report is held and printed after the main lane's, so the
 * two never interleave in the log.
 */
async function runFiles(list: string[], filesAtOnce: number, held: boolean) {
  if (list.length === 0) return { exit: 0, report: '' };
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${filesAtOnce}`,
      ...(timings ? ['--import', './scripts/lib/file-clock.mjs'] : []),
      '--test-reporter=spec',
      ...list,
    ],
    {
      stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: {
        ...process.env,
        TEST_MONGODB_URI: infra.mongoUri,
        TEST_TEMPORAL_ADDRESS: infra.temporalAddress,
        ...(timings ? { TEST_TIMINGS_FILE: timings } : {}),
      },
    },
  );
  running.add(child);
  let report = '';
  child.stdout?.on('data', (d) => {
    report += d;
  });
  child.stderr?.on('data', (d) => {
    report += d;
  });
  const exit = await new Promise<number>((resolve) =>
    child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))),
  );
  running.delete(child);
  return { exit, report };
}

let code = 0;
for (const phase of phases.filter((p) => p.files.length + p.side.length > 0)) {
  const started = Date.now();
  if (phases.length > 1)
    process.stderr.write(
      `[test] ${phase.files.length} files, ${phase.concurrency} at a time` +
        (phase.side.length > 0 ? `; beside them ${phase.side.length} files one at a time` : '') +
        '\n',
    );
  const [main, side] = await Promise.all([
    runFiles(phase.files, phase.concurrency, false),
    runFiles(phase.side, 1, true),
  ]);
  if (phase.side.length > 0) {
    process.stdout.write(side.report);
    process.stderr.write(`[test] the side lane's ${phase.side.length} files: exit ${side.exit}\n`);
  }
  const exit = main.exit || side.exit;
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
