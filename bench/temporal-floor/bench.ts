// Temporal's own floor for a job on this machine, with none of our work in it: the latency of a workflow
// that returns at once and of one that runs one empty activity (as an extract's one-activity workflow), at
// concurrency 1 and 10, and the Temporal dev server's CPU per workflow, on the same embedded stack and
// settings as `npm test` (temporal-config/dev-server.ts).
//   npm run bench:temporal-floor -- [--workflows 200] [--concurrency 1,10]
// An extract's own overhead is measured against this: an extract cannot cost less than oneActivity.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startInfra } from '../../scripts/lib/stack.js';
import { serverCpuMs } from '../server-cpu.js';

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
const taskQueue = 'temporal-floor';
const native = await NativeConnection.connect({ address: infra.temporalAddress });
const worker = await Worker.create({
  connection: native,
  taskQueue,
  workflowsPath: new URL('./workflows.ts', import.meta.url).pathname,
  activities: { nothing: async () => 0 },
});
const running = worker.run();
const connection = await Connection.connect({ address: infra.temporalAddress });
const client = new Client({ connection });

const percentile = (sorted: number[], p: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);

async function run(workflow: 'startAndReturn' | 'oneActivity', concurrency: number, count: number) {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = serverCpuMs().temporal;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        const t = performance.now();
        const handle = await client.workflow.start(workflow, {
          taskQueue,
          workflowId: `${workflow}-${concurrency}-${n}-${Date.now()}`,
          args: [n],
        });
        await handle.result();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    workflow,
    concurrency,
    workflows: count,
    latency_ms: {
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
    },
    workflows_per_second: Number((count / seconds).toFixed(1)),
    temporal_cpu_ms_per_workflow: Number(((serverCpuMs().temporal - cpuBefore) / count).toFixed(1)),
  };
}

const results = [];
for (const workflow of ['startAndReturn', 'oneActivity'] as const) {
  await run(workflow, 1, 20); // warm-up
  for (const concurrency of concurrencies) results.push(await run(workflow, concurrency, total));
}
console.log(
  JSON.stringify(
    { at: new Date().toISOString(), load_average: loadavg().map((l) => Number(l.toFixed(2))), results },
    null,
    2,
  ),
);
worker.shutdown();
await running;
await connection.close();
await native.close();
await infra.stop();
