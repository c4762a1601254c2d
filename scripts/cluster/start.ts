// `npm run start:cluster`: the production topology on this machine (scripts/cluster/cluster.ts) —
// PostgreSQL, a real Temporal server and FerretDB on it, two workers and two APIs behind one address. Data
// lives in CLUSTER_DIR (default: extract-service-cluster in the system's temp folder). Ctrl-C stops it all.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config.js';
import { type Cluster, startCluster } from './cluster.js';

const log = (msg: string) => process.stderr.write(`[cluster] ${msg}\n`);
const config = loadConfig();
const dataDir = process.env.CLUSTER_DIR ?? join(tmpdir(), 'extract-service-cluster');
let stopping = false;
let cluster: Cluster | undefined;

async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  await cluster?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  cluster = await startCluster({
    dataDir,
    apiPort: config.PORT,
    temporalPort: Number(process.env.TEMPORAL_PORT ?? 7233),
    mongoPort: Number(process.env.FERRETDB_PORT ?? 27017),
    postgresPort: Number(process.env.POSTGRES_PORT ?? 55432),
    workers: Number(process.env.CLUSTER_WORKERS ?? 2),
    apis: Number(process.env.CLUSTER_APIS ?? 2),
    log,
    onGiveUp: () => void stop(1),
  });
  const lines = [
    '',
    'The cluster is running.',
    `  API (one address, round robin)  ${cluster.apiUrl}/api/v1`,
    `  Temporal frontend               ${cluster.temporalAddress}`,
    `  MongoDB protocol (FerretDB)     ${cluster.mongoUri}`,
    '  Prometheus targets, one per process:',
    ...Object.entries(cluster.metricsTargets).map(([name, url]) => `    ${name.padEnd(10)} ${url}`),
    '',
    `  An API key: MONGODB_URI=${cluster.mongoUri} npm run --silent admin -- create-key --tenant <name>`,
    'Ctrl-C stops everything.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (err) {
  log(`could not start: ${(err as Error).stack ?? err}`);
  await stop(1);
}
