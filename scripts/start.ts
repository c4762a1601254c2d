// `npm start` after setup: the whole service on this machine. Starts FerretDB (unless MONGODB_URI is set),
// the Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS is set), the worker and the API; restarts
// any of them that exits (scripts/lib/supervisor.ts) and stops them all on Ctrl-C / SIGTERM. Data lives in
// DATA_DIR (default ./data), so jobs survive a restart.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../shared/config.js';
import { ConsoleSessionStore, signInUrl } from '../shared/store/console-sessions.js';
import { connectMongo, ensureIndexes } from '../shared/store/mongo.js';
import { TenantStore } from '../shared/store/tenants.js';
import { ensureProcessBundles } from './build-processes.js';
import { ferretDbUri, startFerretDb, startTemporal } from './lib/infra.js';
import { freePort, isPortFree } from './lib/ports.js';
import { processBundle, startChild, waitForPort, workerEnv, workerNodeArgs } from './lib/processes.js';
import { Supervisor } from './lib/supervisor.js';

const FERRETDB_PORT = Number(process.env.FERRETDB_PORT ?? 27017);
const TEMPORAL_PORT = Number(process.env.TEMPORAL_PORT ?? 7233);
/** The worker's /metrics when WORKER_METRICS_PORT is not set (another free port if this one is taken). */
const DEFAULT_WORKER_METRICS_PORT = 9464;
const log = (msg: string) => process.stderr.write(`[start] ${msg}\n`);

const env = { ...process.env };
const config = loadConfig(env);
const dataDir = resolve(config.DATA_DIR);
let stopping = false;
const supervisor = new Supervisor({
  log,
  onGiveUp: (reason) => {
    log(reason);
    void stopAll(1);
  },
});

async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  // API first (no new work), then the worker (drains), then the servers they use.
  await supervisor.stop(['api', 'worker', 'temporal', 'ferretdb']);
  log('stopped');
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

async function requireFree(port: number, what: string, variable: string) {
  if (!(await isPortFree(port))) {
    log(`port ${port} (${what}) is already in use. Stop whatever uses it, or set ${variable}.`);
    process.exit(1);
  }
}

try {
  if (!process.env.MONGODB_URI) {
    await requireFree(FERRETDB_PORT, 'FerretDB', 'MONGODB_URI to use your own MongoDB');
    log(`starting FerretDB (SQLite in ${dataDir}/ferretdb)`);
    await supervisor.start({
      name: 'ferretdb',
      start: () => startFerretDb({ dataDir, port: FERRETDB_PORT }),
    });
    env.MONGODB_URI = ferretDbUri(dataDir, FERRETDB_PORT);
  } else log('using the MongoDB at MONGODB_URI');

  const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
  if (!process.env.TEMPORAL_ADDRESS) {
    const port = TEMPORAL_PORT;
    await requireFree(port, 'Temporal', 'TEMPORAL_ADDRESS to use your own Temporal cluster');
    log(`starting the Temporal dev server (SQLite in ${dataDir}/temporal.sqlite)`);
    await supervisor.start({ name: 'temporal', start: () => startTemporal({ dataDir, port, uiPort }) });
    env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
  } else log(`using the Temporal server at ${process.env.TEMPORAL_ADDRESS}`);

  env.SECRETS_KEY = env.SECRETS_KEY || ensureSecretsKey();
  const firstKey = await ensureFirstKey(env.MONGODB_URI ?? config.MONGODB_URI);

  // The processes run from their bundles, rebuilt here when the sources changed since the set-up.
  if (await ensureProcessBundles()) log('worker and API bundles rebuilt (dist/node)');
  await requireFree(config.PORT, 'API', 'PORT');
  // A server restarted under them is reconnected to; one that is down when they start makes them exit, so
  // they are restarted only once their servers are up.
  const needs = ['ferretdb', 'temporal'];
  const child = (name: string, entry: string, options: string[] = [], own: NodeJS.ProcessEnv = {}) => ({
    name,
    needs,
    start: async () =>
      startChild(name, process.execPath, [...options, entry], {
        env: { ...env, ...own },
      }),
  });
  // The worker's /metrics (its jobs, pages, activities and the Temporal SDK's series) is on by default, so
  // every series of the dashboard and the alert rules is scraped: one target per process.
  const workerMetricsPort =
    config.WORKER_METRICS_PORT ||
    ((await isPortFree(DEFAULT_WORKER_METRICS_PORT)) ? DEFAULT_WORKER_METRICS_PORT : await freePort());
  await supervisor.start(
    child('worker', processBundle('worker'), workerNodeArgs(), {
      ...workerEnv(),
      WORKER_METRICS_PORT: String(workerMetricsPort),
    }),
  );
  await supervisor.start(child('api', processBundle('api')));
  await waitForPort(config.PORT, config.HOST, 120_000);

  const api = `http://${config.HOST}:${config.PORT}`;
  const lines = [
    '',
    'The service is running.',
    `  API          ${api}/api/v1`,
    `  Console      ${api}/`,
    `  API docs     ${api}/docs   (OpenAPI: ${api}/api/v1/openapi.json)`,
    `  Metrics      ${api}/metrics (API)  http://${config.WORKER_METRICS_HOST}:${workerMetricsPort}/metrics (worker)`,
    process.env.TEMPORAL_ADDRESS
      ? "  Temporal UI  (your Temporal cluster's UI)"
      : `  Temporal UI  http://127.0.0.1:${uiPort}`,
    '',
    firstKey
      ? `  Your API key (tenant "default", shown once): ${firstKey.key}`
      : '  API key: create one with  npm run --silent admin -- create-key --tenant <name>',
    firstKey
      ? `  Sign in to the console (one-time link, 24 h): ${signInUrl(api, firstKey.link)}`
      : '  Console sign-in link: npm run --silent admin -- sign-in-link --tenant <name>',
    `  Try:  curl -s ${api}/api/v1/extract -H "Authorization: Bearer <key>" -H 'Content-Type: application/json' \\`,
    `          -d '{"url":"https://example.com","schema":{"title":"string"}}'`,
    '',
    'Ctrl-C stops everything.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (err) {
  log(`could not start: ${(err as Error).message}`);
  await stopAll(1);
}

/** Provider keys are sealed with SECRETS_KEY; for the local service it is made once and kept in DATA_DIR. */
function ensureSecretsKey(): string {
  const file = resolve(dataDir, 'secrets.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  log(`made a SECRETS_KEY for provider keys in ${file} (set SECRETS_KEY in production)`);
  return key;
}

/**
 * On the very first start (no API key in the database and no SERVICE_BOOTSTRAP_API_KEY) a key for the
 * "default" tenant is made and printed once, with a one-time sign-in link to the console, so a newcomer can
 * call the API (or open the console) straight away.
 */
async function ensureFirstKey(mongoUri: string): Promise<{ key: string; link: string } | null> {
  if (config.SERVICE_BOOTSTRAP_API_KEY) return null;
  const mongo = await connectMongo(mongoUri, config.MONGODB_DB);
  try {
    await ensureIndexes(mongo.db);
    const tenants = new TenantStore(mongo.db);
    if (await tenants.hasAnyKey()) return null;
    const tenant = await tenants.ensureTenant('default');
    const { key } = await tenants.createKey(tenant._id, 'first key');
    return { key, link: await new ConsoleSessionStore(mongo.db).createLink(tenant._id) };
  } finally {
    await mongo.close();
  }
}
