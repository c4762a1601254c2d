// A worker's run and shutdown, shared by the worker's composition root (build.ts) and the tests' fake worker.
import { GracefulShutdownPeriodExpiredError, Runtime, type Worker } from '@temporalio/worker';

/**
 * A worker's run and shutdown: run starts it once (a second call gets the same run); shutdown stops it, waits
 * for its run to end, flushes the projections, then closes what the worker was built with (`close`).
 * A run that ends forced (work still running past the worker's shutdownForceTime: a local activity) ends
 * like any other: what it left running is Temporal's to give to another worker.
 */
export function runAndShutdown(
  worker: Worker,
  events: { flushProjections(): Promise<void> },
  close: () => Promise<void>,
): { run(): Promise<void>; shutdown(): Promise<void> } {
  let running: Promise<void> | undefined;
  let forced = false;
  return {
    run() {
      running ??= worker.run().catch((err: unknown) => {
        if (!(err instanceof GracefulShutdownPeriodExpiredError)) throw err;
        forced = true;
        Runtime.instance().logger.warn('the worker stopped with work still running; it runs again elsewhere');
      });
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running?.catch(() => undefined);
      // The pages finished last are in the log; their projection must not be lost with the process.
      await events.flushProjections().catch(() => undefined);
      // A forced run leaves the worker holding its connection: closing it would fail, the process ends anyway.
      await close().catch((err: unknown) => {
        if (!forced) throw err;
      });
    },
  };
}
