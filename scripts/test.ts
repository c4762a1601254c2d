// `npm test` after setup: starts one embedded FerretDB + Temporal for the whole run, then runs every test
// file with Node's test runner. Each test file uses its own database and task queue on that stack.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startInfra } from './lib/stack.js';

// Node 20's test runner takes no globs: find the test files here.
const files = process.argv.slice(2);
const allTests = () =>
  readdirSync('test', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join('test', f))
    .sort();
const infra = await startInfra();
process.stderr.write(`[test] FerretDB ${infra.mongoUri}  Temporal ${infra.temporalAddress}\n`);
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    '--test-reporter=spec',
    ...(files.length > 0 ? files : allTests()),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, TEST_MONGODB_URI: infra.mongoUri, TEST_TEMPORAL_ADDRESS: infra.temporalAddress },
  },
);
const stopChild = (signal: NodeJS.Signals) => child.kill(signal);
process.on('SIGINT', stopChild);
process.on('SIGTERM', stopChild);
const code = await new Promise<number>((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
await infra.stop();
process.exit(code);
