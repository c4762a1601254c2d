// The worker's composition root: config in, a running Temporal worker out.
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { TenantShare } from '../activities/common/tenant-share.js';
import { createBrowserPool } from '../activities/fetching/browser/browser-pool.js';
import { createDocumentReaders } from '../activities/fetching/documents/reader.js';
import { createActivities } from '../activities/index.js';
import { createHtmlPool } from '../activities/reading/html-pool/pool.js';
import type { Config } from '../shared/config.js';
import { createMetrics, type ServiceMetrics } from '../shared/metrics/registry.js';
import { countWorker } from '../shared/metrics/worker-counts.js';
import { createStores } from '../shared/store/index.js';
import { connectMongo, ensureIndexes, type Mongo } from '../shared/store/mongo.js';
import type { Tracing } from '../shared/telemetry/tracing.js';
import { ensureSearchAttributes } from '../temporal-config/search-attributes.js';
import { workerInterceptors, workerSinks, workflowInterceptorModules } from './interceptors.js';
import { freeLoopbackPort, type MetricsServer, startMetricsServer } from './metrics-server.js';
import { runAndShutdown } from './run-and-shutdown.js';
import { installRuntime, type LogDestination } from './runtime.js';
import { WORKFLOWS_PATH, workflowBundlePath } from './workflow-bundle.js';

/** How long after the grace a stopping worker waits for its local activities (see shutdownForceTime). */
const FORCE_AFTER_GRACE_MS = 1_000;

export interface RunningWorker {
  worker: Worker;
  mongo: Mongo;
  /** This worker's series (served on WORKER_METRICS_PORT when set). */
  metrics: ServiceMetrics;
  metricsServer: MetricsServer | null;
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface WorkerOptions {
  /** From startTracing: spans for workflows and activities, exported with the process's other spans. */
  tracing?: Tracing | null;
  /** Where the worker's JSON log lines go (default stderr); the runtime's logger is per process. */
  logDestination?: LogDestination;
  /** The registry the worker counts into (default: a new one). */
  metrics?: ServiceMetrics;
}

export async function buildWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  // With a /metrics of its own, the worker always runs the SDK's exporter (on a free loopback port unless
  // TEMPORAL_METRICS_PORT names one) and serves its series too: one target per worker process.
  const sdkMetrics = config.TEMPORAL_METRICS_PORT
    ? { host: config.WORKER_METRICS_HOST, port: config.TEMPORAL_METRICS_PORT }
    : config.WORKER_METRICS_PORT
      ? { host: '127.0.0.1', port: await freeLoopbackPort() }
      : null;
  installRuntime(
    config.LOG_LEVEL,
    options.logDestination,
    sdkMetrics ? `${sdkMetrics.host}:${sdkMetrics.port}` : undefined,
  );
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  await ensureIndexes(mongo.db);
  const client = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  await ensureSearchAttributes(client, config.TEMPORAL_NAMESPACE);
  await client.close();
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const stores = createStores(mongo.db, config);
  const { events, contents, pages, llm, debug, webhooks, jobs, learned, budgets, tenants, monitors } = stores;
  const browser = createBrowserPool(config); // launches Chromium on the first dynamic fetch, not here
  const html = createHtmlPool(config); // threads for HTML work, started now so the first page finds them warm
  const documents = createDocumentReaders(config); // child processes, started on the first document
  const activities = createActivities({
    config,
    events,
    contents,
    pages,
    llm,
    debug,
    browser,
    html,
    documents,
    webhooks,
    jobs,
    learned,
    budgets,
    tenants,
    monitors,
    sessions: stores.sessions,
  });
  const metrics = options.metrics ?? createMetrics({ tenantLabels: config.METRICS_TENANT_LABELS });
  const stopCounting = countWorker(metrics, events, browser);
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: {
      codePath: await workflowBundlePath(WORKFLOWS_PATH, workflowInterceptorModules(options.tracing)),
    },
    activities,
    // The workflow interceptor modules are in the bundle; here only the activity ones.
    interceptors: {
      activity: workerInterceptors(options.tracing, TenantShare.fromConfig(config), metrics).activity,
    },
    sinks: workerSinks(options.tracing),
    maxConcurrentActivityTaskExecutions: config.WORKER_MAX_ACTIVITIES,
    // An extract's page runs as a local activity (workflows/policies.ts), with as many slots of its own.
    maxConcurrentLocalActivityExecutions: config.WORKER_MAX_ACTIVITIES,
    // An extract's workflow task stays open while its page runs (a local activity, as many as activities):
    // those get slots of their own, so pages in flight never keep other workflows' tasks waiting.
    maxConcurrentWorkflowTaskExecutions: config.WORKER_MAX_WORKFLOW_TASKS + config.WORKER_MAX_ACTIVITIES,
    maxEagerActivityReservationsPerWorkflowTask: config.WORKER_EAGER_ACTIVITIES,
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
    // Temporal cancels activities at the end of the grace, but lets a local activity (an extract's page) run
    // on: past this the worker stops anyway (run() throws GracefulShutdownPeriodExpiredError), and the
    // page's workflow task times out and runs on another worker, which finds whatever the page recorded.
    shutdownForceTime: config.WORKER_SHUTDOWN_GRACE_MS + FORCE_AFTER_GRACE_MS,
  });
  const metricsServer = await startMetricsServer(
    metrics.registry,
    config,
    sdkMetrics ? `http://${scrapeHost(sdkMetrics.host)}:${sdkMetrics.port}/metrics` : undefined,
  );
  return {
    worker,
    mongo,
    metrics,
    metricsServer,
    ...runAndShutdown(worker, events, async () => {
      stopCounting();
      await metricsServer?.close();
      await browser?.close();
      await html.close();
      await documents.close();
      await mongo.close();
      await connection.close();
    }),
  };
}

/** Where this process reaches a server bound on `host` (a wildcard is reached on loopback). */
function scrapeHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
