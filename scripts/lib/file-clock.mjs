// Loaded (`--import`) into each test file's process by `TEST_TIMINGS=1 npm test`: when the process ends it
// appends the file's wall time since the process started and the CPU time of the process (its threads
// included, child processes such as Chromium or schemathesis not) to TEST_TIMINGS_FILE, which scripts/test.ts
// sums up. Plain JavaScript: it is loaded beside tsx, not through it.
import { appendFileSync } from 'node:fs';

const file = process.argv[1];
const out = process.env.TEST_TIMINGS_FILE;
if (out && file?.endsWith('.test.ts')) {
  process.on('exit', (code) => {
    const cpu = process.cpuUsage();
    const line = {
      file,
      wallMs: Math.round(performance.now()),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      code,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
