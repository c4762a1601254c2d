// A worker for the test service that runs the real workflows (the worker's cached bundle, its interceptors)
// with the activities a test gives it (fake-activities.ts): no HTML threads, browser, document readers or
// model SDKs are started, and the activities write to the service's own stores.
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { StoreDeps } from '../../activities/common/deps.js';
import type { Config } from '../../shared/config.js';
import { createMetrics } from '../../shared/metrics/registry.js';
import { createStores } from '../../shared/store/index.js';
import { connectMongo } from '../../shared/store/mongo.js';
import { ensureSearchAttributes } from '../../temporal-config/search-attributes.js';
import type { RunningWorker } from '../../worker/build.js';
import { workerInterceptors, workflowInterceptorModules } from '../../worker/interceptors.js';
import { runAndShutdown } from '../../worker/run-and-shutdown.js';
import { installRuntime, type LogDestination } from '../../worker/runtime.js';
import { WORKFLOWS_PATH, workflowBundlePath } from '../../worker/workflow-bundle.js';
import type { FakeActivities } from './fake-activities.js';

export async function startFakeWorker(
  config: Config,
  fakes: FakeActivities,
  logDestination?: LogDestination,
): Promise<RunningWorker> {
  installRuntime(config.LOG_LEVEL, logDestination);
  // Stores of its own on a connection of its own, as a worker process has them.
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  const stores = createStores(mongo.db, config);
  const deps: StoreDeps = { config, ...stores };
  const client = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  await ensureSearchAttributes(client, config.TEMPORAL_NAMESPACE).finally(() => client.close());
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: { codePath: await workflowBundlePath(WORKFLOWS_PATH, workflowInterceptorModules(null)) },
    activities: fakes.build(deps),
    // Heartbeats and the job's context on every activity, as the real worker has them.
    interceptors: { activity: workerInterceptors(null).activity },
    maxConcurrentActivityTaskExecutions: config.WORKER_MAX_ACTIVITIES,
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
  });
  return {
    worker,
    mongo,
    metrics: createMetrics({ tenantLabels: config.METRICS_TENANT_LABELS }),
    metricsServer: null,
    ...runAndShutdown(worker, deps.events, async () => {
      await connection.close();
      await mongo.close();
    }),
  };
}
