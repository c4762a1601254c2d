// A test reporter for `TEST_TIMINGS=1 npm test` (or one group of files): at the end, each file's time from its
// first event to its last, slowest first, and how many of its tests ran. The time leaves out the process's
// start (loading tsx and the file's imports, about a second) and counts the file's hooks; files that run two at
// a time share the cores, so compare files of one run with each other, not across runs.
// Plain JavaScript: Node 20 loads a reporter before `--import tsx` can compile TypeScript for it.
import { relative } from 'node:path';

/** @param {AsyncIterable<{ type: string, data?: { file?: string } }>} source */
export default async function* fileTimings(source) {
  /** @type {Map<string, { first: number, last: number, tests: number, failed: number }>} */
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = performance.now();
    const seen = files.get(file) ?? { first: now, last: now, tests: 0, failed: 0 };
    seen.last = now;
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      seen.tests += 1;
      if (event.type === 'test:fail') seen.failed += 1;
    }
    files.set(file, seen);
  }
  const rows = [...files].sort(([, a], [, b]) => b.last - b.first - (a.last - a.first));
  const total = rows.reduce((sum, [, t]) => sum + (t.last - t.first), 0);
  yield `\n[timings] ${rows.length} files, ${(total / 1000).toFixed(0)} s summed\n`;
  for (const [file, t] of rows) {
    const failed = t.failed > 0 ? `, ${t.failed} failed` : '';
    yield `[timings] ${((t.last - t.first) / 1000).toFixed(1).padStart(6)} s  ${relative(process.cwd(), file)} (${t.tests} tests${failed})\n`;
  }
}
