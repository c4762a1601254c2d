// The worker's composition root: config in, a running Temporal worker out.
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createBrowserPool } from '../activities/browser/browser-pool.js';
import { createHtmlPool } from '../activities/html-pool/pool.js';
import { createActivities } from '../activities/index.js';
import { TenantShare } from '../activities/tenant-share.js';
import type { Config } from '../shared/config.js';
import { createStores } from '../shared/store/index.js';
import { connectMongo, ensureIndexes, type Mongo } from '../shared/store/mongo.js';
import type { Tracing } from '../shared/telemetry/tracing.js';
import { ensureSearchAttributes } from '../temporal-config/search-attributes.js';
import { workerInterceptors, workerSinks, workflowInterceptorModules } from './interceptors.js';
import { installRuntime, type LogDestination } from './runtime.js';
import { workflowBundlePath } from './workflow-bundle.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface RunningWorker {
  worker: Worker;
  mongo: Mongo;
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface WorkerOptions {
  /** From startTracing: spans for workflows and activities, exported with the process's other spans. */
  tracing?: Tracing | null;
  /** Where the worker's JSON log lines go (default stderr); the runtime's logger is per process. */
  logDestination?: LogDestination;
}

export async function buildWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  installRuntime(config.LOG_LEVEL, options.logDestination);
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  await ensureIndexes(mongo.db);
  const client = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  await ensureSearchAttributes(client, config.TEMPORAL_NAMESPACE);
  await client.close();
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const { events, contents, llm, debug, webhooks, jobs, learned, budgets, tenants } = createStores(
    mongo.db,
    config,
  );
  const browser = createBrowserPool(config); // launches Chromium on the first dynamic fetch, not here
  const html = createHtmlPool(config); // threads for HTML work, started now so the first page finds them warm
  const activities = createActivities({
    config,
    events,
    contents,
    llm,
    debug,
    browser,
    html,
    webhooks,
    jobs,
    learned,
    budgets,
    tenants,
  });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: {
      codePath: await workflowBundlePath(WORKFLOWS_PATH, workflowInterceptorModules(options.tracing)),
    },
    activities,
    // The workflow interceptor modules are in the bundle; here only the activity ones.
    interceptors: { activity: workerInterceptors(options.tracing, TenantShare.fromConfig(config)).activity },
    sinks: workerSinks(options.tracing),
    maxConcurrentActivityTaskExecutions: config.WORKER_MAX_ACTIVITIES,
    maxConcurrentWorkflowTaskExecutions: config.WORKER_MAX_WORKFLOW_TASKS,
    maxEagerActivityReservationsPerWorkflowTask: config.WORKER_EAGER_ACTIVITIES,
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
  });
  let running: Promise<void> | undefined;
  return {
    worker,
    mongo,
    run() {
      running ??= worker.run();
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running?.catch(() => undefined);
      await browser?.close();
      await html.close();
      await connection.close();
      await mongo.close();
    },
  };
}
