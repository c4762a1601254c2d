// The production topology on one machine: PostgreSQL, a real Temporal server and FerretDB (its postgresql
// handler) on it, N worker processes and N API processes, and a round-robin balancer giving the APIs one
// address. Every process is supervised (scripts/lib/supervisor.ts): one that dies is started again, as an
// orchestrator would, while the others carry the load. Used by `npm run start:cluster` and the fault tests
// (test/cluster/).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TemporalSql } from '../../temporal-config/cluster.js';
import { ferretdbBinary } from '../lib/binaries.js';
import { isPortFree } from '../lib/ports.js';
import {
  type Child,
  processBundle,
  startChild,
  waitForPort,
  workerEnv,
  workerNodeArgs,
} from '../lib/processes.js';
import { Supervisor } from '../lib/supervisor.js';
import { portOr, temporalPorts, uniqueFreePort } from './ports.js';
import { initPostgres, startPostgres } from './postgres.js';
import { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.js';
import { prepareNamespace, setUpTemporalSchema, startTemporalServer } from './temporal-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FERRETDB_DATABASE = 'ferretdb';
const NAMESPACE = 'default';

export interface ClusterOptions {
  dataDir: string;
  /** The balancer's port (the API's one address); 0: a free one. */
  apiPort?: number;
  /** Temporal's frontend, FerretDB and PostgreSQL; 0 or absent: free ones. */
  temporalPort?: number;
  mongoPort?: number;
  postgresPort?: number;
  workers?: number;
  apis?: number;
  /** More environment for the workers and APIs (over the process's own). */
  env?: Record<string, string>;
  /** Silences PostgreSQL, Temporal and FerretDB (the workers' and APIs' LOG_LEVEL governs theirs). */
  quiet?: boolean;
  log?: (msg: string) => void;
  /** Called once when a process crash-loops (the supervisor gives up). */
  onGiveUp?: (reason: string) => void;
}

export interface Cluster {
  apiUrl: string;
  temporalAddress: string;
  mongoUri: string;
  /** The environment the workers and APIs run with. */
  env: Record<string, string>;
  proxy: RoundRobinProxy;
  /** Names of the supervised processes: postgres, temporal, ferretdb, worker-<n>, api-<n>. */
  names: string[];
  /** Prometheus targets, one per process: name → URL of its /metrics. */
  metricsTargets: Record<string, string>;
  /** The running process of a name (null while it restarts). */
  current(name: string): Child | null;
  /** Sends a signal to the named process; the supervisor starts it again. */
  kill(name: string, signal: NodeJS.Signals): void;
  /** Resolves once the named process is running again after a kill (a new process, ready). */
  waitRestarted(name: string, previous: Child, timeoutMs?: number): Promise<Child>;
  stop(): Promise<void>;
}

const sh = (script: string) => {
  const res = spawnSync('bash', [join(ROOT, 'scripts', 'cluster', script)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (res.status !== 0) throw new Error(`scripts/cluster/${script} failed`);
  return res.stdout.trim().split('\n').pop() ?? '';
};

function secretsKey(dataDir: string): string {
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`[cluster] ${msg}\n`));
  const quiet = opts.quiet ?? false;
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  // PostgreSQL runs as its own account: it must reach its folder inside this one.
  chmodSync(dataDir, 0o755);
  log('checking binaries (PostgreSQL, Temporal server, FerretDB)');
  const pgBin = sh('install-postgres.sh');
  const temporalBin = sh('install-temporal-server.sh');
  spawnSync('bash', [join(ROOT, 'scripts', 'install-binaries.sh'), 'ferretdb'], { stdio: 'inherit' });

  const pgPort = await portOr(opts.postgresPort);
  const mongoPort = await portOr(opts.mongoPort);
  const ports = await temporalPorts(await portOr(opts.temporalPort));
  for (const [what, port] of [
    ['PostgreSQL', pgPort],
    ['FerretDB', mongoPort],
    ['Temporal', ports.frontend],
  ] as const) {
    if (!(await isPortFree(port))) throw new Error(`port ${port} (${what}) is already in use`);
  }
  const sql: TemporalSql = { host: '127.0.0.1', port: pgPort, user: 'extract', password: 'extract-local' };
  const pg = {
    binDir: pgBin,
    dataDir: join(dataDir, 'postgres'),
    port: pgPort,
    quiet,
    user: sql.user,
    password: sql.password,
  };
  const temporalDir = join(dataDir, 'temporal');
  mkdirSync(temporalDir, { recursive: true });
  const children = new Map<string, Child>();
  const restarted = new Map<string, Array<(c: Child) => void>>();
  let gaveUp = false;
  const supervisor = new Supervisor({
    log,
    onGiveUp: (reason) => {
      gaveUp = true;
      log(reason);
      opts.onGiveUp?.(reason);
    },
  });
  const supervise = async (name: string, needs: string[], start: () => Promise<Child>) => {
    await supervisor.start({
      name,
      needs,
      start: async () => {
        const child = await start();
        children.set(name, child);
        child.proc.once('exit', () => {
          if (children.get(name) === child) children.delete(name);
        });
        for (const resolveWaiter of restarted.get(name) ?? []) resolveWaiter(child);
        restarted.delete(name);
        return child;
      },
    });
  };

  const temporalAddress = `127.0.0.1:${ports.frontend}`;
  const mongoUri = `mongodb://127.0.0.1:${mongoPort}/`;
  const names = ['postgres', 'temporal', 'ferretdb'];
  let proxy: RoundRobinProxy;
  const env: Record<string, string> = {};
  const metricsTargets: Record<string, string> = {};
  try {
    initPostgres(pg);
    log(`starting PostgreSQL on 127.0.0.1:${pgPort} (data in ${pg.dataDir})`);
    await supervise('postgres', [], () => startPostgres(pg));
    setUpTemporalSchema(temporalBin, sql, temporalDir);
    log(`starting the Temporal server on 127.0.0.1:${ports.frontend}`);
    await supervise('temporal', ['postgres'], () =>
      startTemporalServer({ binDir: temporalBin, dataDir: temporalDir, ports, sql, quiet }),
    );
    await prepareNamespace(temporalAddress, NAMESPACE);

    const ferretUrl = `postgres://${sql.user}:${sql.password}@127.0.0.1:${pgPort}/${FERRETDB_DATABASE}`;
    // FerretDB keeps its data in a database of its own (made here once; it makes its schemas in it).
    spawnSync(
      join(temporalBin, 'temporal-sql-tool'),
      [
        '--plugin',
        'postgres12',
        '-p',
        String(pgPort),
        '-u',
        sql.user,
        '--pw',
        sql.password,
        '--db',
        FERRETDB_DATABASE,
        '--quiet',
        'create-database',
      ],
      { stdio: 'ignore' },
    );
    log(`starting FerretDB (postgresql handler) on 127.0.0.1:${mongoPort}`);
    await supervise('ferretdb', ['postgres'], async () => {
      const child = startChild(
        'ferretdb',
        ferretdbBinary(),
        [
          '--handler=postgresql',
          `--postgresql-url=${ferretUrl}`,
          `--listen-addr=127.0.0.1:${mongoPort}`,
          `--state-dir=${dataDir}`,
          '--telemetry=disable',
          '--debug-addr=-',
          '--log-level=warn',
        ],
        { quiet },
      );
      await waitForPort(mongoPort, '127.0.0.1', 60_000, child);
      return child;
    });

    Object.assign(env, {
      MONGODB_URI: mongoUri,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: NAMESPACE,
      SECRETS_KEY: process.env.SECRETS_KEY || secretsKey(dataDir),
      ...opts.env,
    });
    metricsTargets.temporal = `http://127.0.0.1:${ports.metrics}/metrics`;
    const needs = ['temporal', 'ferretdb'];
    const nodeChild = (
      name: string,
      entry: 'worker' | 'api',
      ownEnv: Record<string, string>,
      nodeArgs: string[] = [],
    ) =>
      supervise(name, needs, async () => {
        const child = startChild(name, process.execPath, [...nodeArgs, processBundle(entry)], {
          env: { ...process.env, ...env, ...ownEnv },
          // Their own LOG_LEVEL decides what they say; `quiet` silences only the servers.
          cwd: ROOT,
        });
        if (ownEnv.PORT) await waitForPort(Number(ownEnv.PORT), '127.0.0.1', 120_000, child);
        return child;
      });
    for (let i = 1; i <= (opts.workers ?? 2); i++) {
      const metricsPort = await uniqueFreePort();
      metricsTargets[`worker-${i}`] = `http://127.0.0.1:${metricsPort}/metrics`;
      log(`starting worker-${i}`);
      await nodeChild(
        `worker-${i}`,
        'worker',
        {
          ...workerEnv(),
          WORKER_METRICS_PORT: String(metricsPort),
          // The SDK's exporter (merged into the worker's /metrics) on a port given here too, so no two
          // processes of the cluster ever pick the same one.
          TEMPORAL_METRICS_PORT: String(await uniqueFreePort()),
        },
        workerNodeArgs(),
      );
      names.push(`worker-${i}`);
    }
    const backends: { host: string; port: number }[] = [];
    for (let i = 1; i <= (opts.apis ?? 2); i++) {
      const port = await uniqueFreePort();
      metricsTargets[`api-${i}`] = `http://127.0.0.1:${port}/metrics`;
      log(`starting api-${i} on 127.0.0.1:${port}`);
      await nodeChild(`api-${i}`, 'api', { PORT: String(port), HOST: '127.0.0.1' });
      backends.push({ host: '127.0.0.1', port });
      names.push(`api-${i}`);
    }
    proxy = await startRoundRobinProxy(backends, { port: opts.apiPort ?? 0 });
    writeFileSync(join(dataDir, 'prometheus-targets.json'), prometheusTargets(metricsTargets));
    log(
      `the API's one address: http://127.0.0.1:${proxy.port} (round robin over ${backends.length} processes)`,
    );
  } catch (err) {
    // Whatever started is stopped: nothing is left running behind a failed start.
    await supervisor.stop([...names].reverse());
    throw err;
  }

  return {
    apiUrl: `http://127.0.0.1:${proxy.port}`,
    temporalAddress,
    mongoUri,
    env,
    proxy,
    names,
    metricsTargets,
    current: (name) => children.get(name) ?? null,
    kill(name, signal) {
      const child = children.get(name);
      if (!child) throw new Error(`${name} is not running`);
      child.proc.kill(signal);
    },
    waitRestarted(name, previous, timeoutMs = 180_000) {
      const now = children.get(name);
      if (now && now !== previous) return Promise.resolve(now);
      return new Promise<Child>((resolveChild, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name} did not restart within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        const list = restarted.get(name) ?? [];
        list.push((child) => {
          clearTimeout(timer);
          resolveChild(child);
        });
        restarted.set(name, list);
        if (gaveUp) reject(new Error('the supervisor gave up'));
      });
    },
    async stop() {
      await proxy.close();
      // APIs first (no new work), then the workers (they drain), then the servers they use.
      const apis = names.filter((n) => n.startsWith('api-'));
      const workers = names.filter((n) => n.startsWith('worker-'));
      await supervisor.stop([...apis, ...workers, 'temporal', 'ferretdb', 'postgres']);
    },
  };
}

/**
 * The scrape targets as a Prometheus file_sd file (docs/grafana/prometheus.yml reads it): one per process,
 * with the job names the dashboard and the alert rules select on.
 */
function prometheusTargets(targets: Record<string, string>): string {
  const job = (name: string) =>
    name.startsWith('api-')
      ? 'extract-service-api'
      : name.startsWith('worker-')
        ? 'extract-service-worker'
        : 'temporal-server';
  const groups = Object.entries(targets).map(([name, url]) => ({
    targets: [new URL(url).host],
    labels: { job: job(name), process: name },
  }));
  return `${JSON.stringify(groups, null, 2)}\n`;
}
