// Temporal's floor for a job, with none of our work in it: workflows that return at once or run one empty
// activity (as an extract's one-activity workflow), run on a stack's Temporal by a worker of their own. Used
// by bench:temporal-floor alone and by bench:extract beside its extracts, so both are measured in one run.
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { SEARCH_ATTRIBUTE_KEYS } from '../../shared/temporal-names.js';
import { cpuSince, sampleCpu } from '../server-cpu.js';

export type FloorWorkflow = 'startAndReturn' | 'oneActivity' | 'oneActivityAsJob';

/** What a job's workflow is started with beside its input (api/job-runner.ts), for oneActivityAsJob. */
const asJob = {
  memo: { url: 'http://127.0.0.1/p', tenant: 'ten_floor' },
  typedSearchAttributes: new TypedSearchAttributes([
    { key: SEARCH_ATTRIBUTE_KEYS.tenant, value: 'ten_floor' },
    { key: SEARCH_ATTRIBUTE_KEYS.jobType, value: 'extract' },
    { key: SEARCH_ATTRIBUTE_KEYS.domain, value: '127.0.0.1' },
    { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'pending' },
  ]),
};

const percentile = (sorted: number[], p: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);

/** A worker and a client for the floor's workflows on the Temporal at `address`. */
export async function startFloor(address: string, taskQueue = 'temporal-floor') {
  const native = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowsPath: new URL('./workflows.ts', import.meta.url).pathname,
    activities: { nothing: async () => 0 },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });

  /** `count` workflows, `concurrency` at a time: latency percentiles, rate and CPU per workflow. */
  async function run(workflow: FloorWorkflow, concurrency: number, count: number) {
    const latencies: number[] = [];
    let next = 0;
    const cpuBefore = sampleCpu();
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
            ...(workflow === 'oneActivityAsJob' ? asJob : {}),
          });
          await handle.result();
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSince(cpuBefore);
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
      cpu_ms_per_workflow: Object.fromEntries(
        Object.entries(cpu).map(([k, ms]) => [k, Number((ms / count).toFixed(1))]),
      ),
    };
  }

  /** One workflow, waited for: its id (to read its history). */
  async function runOne(workflow: FloorWorkflow): Promise<string> {
    const workflowId = `${workflow}-one-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const handle = await client.workflow.start(workflow, {
      taskQueue,
      workflowId,
      args: [0],
      ...(workflow === 'oneActivityAsJob' ? asJob : {}),
    });
    await handle.result();
    return workflowId;
  }

  async function stop() {
    worker.shutdown();
    await running;
    await connection.close();
    await native.close();
  }
  return { run, runOne, stop };
}
