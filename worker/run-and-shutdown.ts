// A worker's run and shutdown, shared by the worker's composition root (build.ts) and the tests' fake worker.
import type { Worker } from '@temporalio/worker';

/**
 * A worker's run and shutdown: run starts it once (a second call gets the same run); shutdown stops it, waits
 * for its run to end, flushes the projections, then closes what the worker was built with (`close`).
 */
export function runAndShutdown(
  worker: Worker,
  events: { flushProjections(): Promise<void> },
  close: () => Promise<void>,
): { run(): Promise<void>; shutdown(): Promise<void> } {
  let running: Promise<void> | undefined;
  return {
    run() {
      running ??= worker.run();
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running?.catch(() => undefined);
      // The pages finished last are in the log; their projection must not be lost with the process.
      await events.flushProjections().catch(() => undefined);
      await close();
    },
  };
}
