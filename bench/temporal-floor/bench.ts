// Temporal's own floor for a job on this machine, with none of our work in it: the latency of a workflow
// that returns at once and of one that runs one empty activity (as an extract's one-activity workflow), at
// concurrency 1 and 10, and the CPU per workflow of the Temporal dev server and of this process (client and
// worker), on the same embedded stack and settings as `npm test` (temporal-config/dev-server.ts).
//   npm run bench:temporal-floor -- [--workflows 200] [--concurrency 1,10]
// An extract's own overhead is measured against this: an extract cannot cost less than oneActivity.
// oneActivityAsJob adds what a job's workflow carries (search attributes at start, its status set twice).
// bench:extract runs oneActivity beside its extracts too (floor.ts), so both come from one run.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startInfra } from '../../scripts/lib/stack.js';
import { startFloor } from './floor.js';

const { values } = parseArgs({
  options: {
    workflows: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '1,10' },
  },
});
const total = Number(values.workflows);
const concurrencies = values.concurrency.split(',').map(Number);
if (!(total > 0) || concurrencies.some((c) => !Number.isInteger(c) || c < 1))
  throw new Error('--workflows N --concurrency 1,10');

const infra = await startInfra();
const floor = await startFloor(infra.temporalAddress);

const results = [];
for (const workflow of ['startAndReturn', 'oneActivity', 'oneActivityAsJob'] as const) {
  await floor.run(workflow, 1, 20); // warm-up
  for (const concurrency of concurrencies) results.push(await floor.run(workflow, concurrency, total));
}
console.log(
  JSON.stringify(
    { at: new Date().toISOString(), load_average: loadavg().map((l) => Number(l.toFixed(2))), results },
    null,
    2,
  ),
);
await floor.stop();
await infra.stop();
