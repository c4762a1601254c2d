// A whole service for a test file: the shared embedded FerretDB + Temporal (started once by `npm test`, or
// here when a file runs alone), a real worker on its own task queue, the Fastify app, a fake model server,
// and a tenant with an API key. Each call gets a fresh database, so test files never see each other's data.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { buildApp } from '../../api/app.js';
import type { ApiDeps } from '../../api/deps.js';
import { type Infra, startInfra } from '../../scripts/lib/stack.js';
import { type Config, loadConfig } from '../../shared/config.js';
import { createStores } from '../../shared/store/index.js';
import { connectMongo, ensureIndexes, type Mongo } from '../../shared/store/mongo.js';
import { clientInterceptors } from '../../shared/telemetry/temporal-client.js';
import type { Tracing } from '../../shared/telemetry/tracing.js';
import type { RunningWorker } from '../../worker/build.js';
import type { FakeActivities } from './fake-activities.js';
import { type FakeLlmServer, type FakeLlmServerOptions, startFakeLlmServer } from './fake-llm-server.js';

export interface InfraHandle {
  mongoUri: string;
  temporalAddress: string;
  stop(): Promise<void>;
}

/** The run's shared infrastructure, or a private one when the file runs on its own. */
export async function useInfra(): Promise<InfraHandle> {
  const mongoUri = process.env.TEST_MONGODB_URI;
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS;
  if (mongoUri && temporalAddress) return { mongoUri, temporalAddress, stop: async () => {} };
  const infra: Infra = await startInfra();
  return infra;
}

export interface TestService {
  config: Config;
  mongo: Mongo;
  deps: ApiDeps;
  app: Awaited<ReturnType<typeof buildApp>>;
  worker: RunningWorker | null;
  llm: FakeLlmServer;
  apiKey: string;
  tenantId: string;
  /** Another tenant with its own key, for isolation tests. */
  newTenant(name: string): Promise<{ tenantId: string; apiKey: string }>;
  startWorker(): Promise<RunningWorker>;
  stopWorker(): Promise<void>;
  auth(key?: string): { authorization: string };
  close(): Promise<void>;
}

export async function startTestService(
  opts: {
    env?: Record<string, string>;
    worker?: boolean;
    infra?: InfraHandle;
    /** From startTracing (e.g. with an in-memory exporter): the API, client and worker are traced. */
    tracing?: Tracing;
    /** Receives the API's and the worker's JSON log lines (the worker's only if its runtime is not yet installed). */
    logStream?: Writable;
    /** Options of the fake model server (e.g. `respond` with each page's truth). */
    llm?: FakeLlmServerOptions;
    /**
     * The worker runs the real workflows with these activities (`fakeActivities`: a page table, a model reading
     * the content it is sent) instead of the real ones: for API tests that start jobs.
     */
    activities?: FakeActivities;
  } = {},
): Promise<TestService> {
  const infra = opts.infra ?? (await useInfra());
  const llm = await startFakeLlmServer(opts.llm);
  const suffix = randomUUID().slice(0, 8);
  const config = loadConfig({
    MONGODB_URI: infra.mongoUri,
    MONGODB_DB: `test_${suffix}`,
    TEMPORAL_ADDRESS: infra.temporalAddress,
    TEMPORAL_TASK_QUEUE: `test-${suffix}`,
    ALLOW_PRIVATE_ADDRESSES: 'true', // fixtures are on loopback
    OPENAI_API_KEY: 'sk-test-operator',
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-operator',
    ANTHROPIC_BASE_URL: llm.anthropicBaseUrl,
    LOG_LEVEL: 'silent',
    PORT: '0',
    SECRETS_KEY: randomBytes(32).toString('base64'),
    // One HTML thread, not production's two: each thread loads the cleaning code (about half a second of CPU
    // a file), and a test file's pages are few. A file that tests the threads themselves sets its own.
    HTML_WORKERS: '1',
    ...opts.env,
  });
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  await ensureIndexes(mongo.db);
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    interceptors: clientInterceptors(opts.tracing),
  });
  const stores = createStores(mongo.db, config);
  const { tenants } = stores;
  const deps: ApiDeps = { config, db: mongo.db, temporal, ...stores };
  // Imported here, not at the top: a file that only wants useInfra loads neither the API nor the worker, and a
  // file without a worker does not load the activities (about a second of CPU each, every file).
  const { buildApp } = await import('../../api/app.js');
  const app = await buildApp(deps, { tracing: opts.tracing, logStream: opts.logStream });
  const newTenant = async (name: string) => {
    const tenant = await tenants.ensureTenant(name);
    const { key } = await tenants.createKey(tenant._id, 'test');
    return { tenantId: tenant._id, apiKey: key };
  };
  const main = await newTenant('tenant-a');
  const worker: RunningWorker | null = null;
  const service: TestService = {
    config,
    mongo,
    deps,
    app,
    worker,
    llm,
    apiKey: main.apiKey,
    tenantId: main.tenantId,
    newTenant,
    async startWorker() {
      if (service.worker) throw new Error('this service already runs a worker: stopWorker() first');
      const w = opts.activities
        ? await (await import('./fake-worker.js')).startFakeWorker(config, opts.activities, opts.logStream)
        : await (await import('../../worker/build.js')).buildWorker(config, {
            tracing: opts.tracing,
            logDestination: opts.logStream,
          });
      void w.run();
      service.worker = w;
      return w;
    },
    async stopWorker() {
      await service.worker?.shutdown();
      service.worker = null;
    },
    auth: (key = main.apiKey) => ({ authorization: `Bearer ${key}` }),
    async close() {
      await service.stopWorker();
      await app.close();
      await connection.close();
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
      await llm.close();
      if (!opts.infra) await infra.stop();
    },
  };
  if (opts.worker !== false) await service.startWorker();
  return service;
}

/**
 * The service's worker as a process of its own (`worker/main.ts` with the service's config), for tests that
 * kill it or that must survive a worker whose event loop freezes. Its stderr is drained, its output dropped.
 * Like the in-process worker it traces nothing unless asked (`env`): no spans to write, no traces file in
 * the checkout's data folder.
 */
export function spawnWorkerProcess(config: Config, env: Record<string, string> = {}): ChildProcess {
  const configEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) if (v !== undefined) configEnv[k] = String(v);
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    env: { ...process.env, ...configEnv, LOG_LEVEL: 'error', OTEL_SDK_DISABLED: 'true', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  return child;
}

/**
 * Waits until each of these worker processes polls the service's activity task queue (a worker's identity is
 * `pid@host`; the queue also lists, for minutes, workers that have stopped, so the pids are what count). A
 * spawned worker loads its code for seconds on a busy machine: a test that wants several to share a job
 * starts it only once each is polling, or the first takes every task before the next is up.
 */
export async function waitForActivityPollers(
  svc: TestService,
  workers: ChildProcess[],
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pids = workers.map((w) => String(w.pid));
  let polling: string[] = [];
  while (Date.now() < deadline) {
    const res = await svc.deps.temporal.workflowService.describeTaskQueue({
      namespace: svc.config.TEMPORAL_NAMESPACE,
      taskQueue: { name: svc.config.TEMPORAL_TASK_QUEUE },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const identities = (res.pollers ?? []).map((p) => p.identity ?? '');
    polling = pids.filter((pid) => identities.some((id) => id.startsWith(`${pid}@`)));
    if (polling.length === pids.length) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `${polling.length} of ${pids.length} workers polled the activity queue within ${timeoutMs} ms`,
  );
}
