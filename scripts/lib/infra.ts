// The embedded infrastructure: Temporal dev server (SQLite, Web UI) and FerretDB (SQLite).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../shared/temporal-names.js';
import { DEV_SERVER_DYNAMIC_CONFIG, DEV_SERVER_NAMESPACE } from '../../temporal-config/dev-server.js';
import { ferretdbBinary, temporalBinary } from './binaries.js';
import { type Child, startChild, waitForPort } from './processes.js';

export async function startTemporal(opts: {
  dataDir: string;
  port: number;
  uiPort: number;
  quiet?: boolean;
}): Promise<Child> {
  mkdirSync(opts.dataDir, { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--http-port',
    String(opts.port + 10),
    '--metrics-port',
    String(opts.port + 20),
    '--db-filename',
    resolve(opts.dataDir, 'temporal.sqlite'),
    // Like FerretDB's below: WAL without an fsync per commit. A killed server loses nothing (the restart
    // test kills it mid-crawl); only an OS crash may roll back the last commits. Crawl throughput at
    // concurrency 10: 38.6 → 47.4 pages/s, Temporal CPU per page 12.6 → 9.1 ms.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    '--log-level',
    'warn',
    '--namespace',
    DEV_SERVER_NAMESPACE,
    ...Object.values(SEARCH_ATTRIBUTES).flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    ...Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
  if (opts.uiPort <= 0) args.push('--headless');
  const child = startChild('temporal', temporalBinary(), args, { quiet: opts.quiet });
  await waitForPort(opts.port, '127.0.0.1', 120_000, child);
  return child;
}

/** The SQLite settings of FerretDB's connections (see startFerretDb). */
export const SQLITE_PRAGMAS = [
  'synchronous(normal)',
  'wal_autocheckpoint(1000)',
  `journal_size_limit(${64 * 1024 * 1024})`,
];

export async function startFerretDb(opts: {
  dataDir: string;
  port: number;
  quiet?: boolean;
}): Promise<Child> {
  const dir = resolve(opts.dataDir, 'ferretdb');
  mkdirSync(dir, { recursive: true });
  const socket = ferretDbSocket(opts.dataDir);
  // A socket file left by a killed FerretDB would stop the new one from listening there.
  if (socket) rmSync(socket, { force: true });
  const child = startChild(
    'ferretdb',
    ferretdbBinary(),
    [
      '--handler=sqlite',
      // WAL (FerretDB's default) with synchronous=normal: no fsync per commit (updates ~9 → 5 ms,
      // inserts ~3.5 → 1.6 ms here). A killed process loses nothing; only an OS crash or power loss may
      // roll back the last commits. Deployments that need more use a real MongoDB (MONGODB_URI).
      // The log is checkpointed every 1,000 pages (4 MB; SQLite's default, written out so it stays so) and
      // its file cut back to 64 MB whenever a checkpoint has emptied it: a long read (FerretDB reads a whole
      // collection for a filter on anything but `_id`) keeps checkpoints from emptying the log, and without
      // a limit the file keeps the size it once grew to (1 GB seen on a grown store). Both apply to every
      // connection FerretDB opens (modernc.org/sqlite runs each `_pragma` on connect).
      `--sqlite-url=file:${dir}/?${SQLITE_PRAGMAS.map((p) => `_pragma=${p}`).join('&')}`,
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${opts.port}`,
      ...(socket ? [`--listen-unix=${socket}`] : []),
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ],
    { quiet: opts.quiet },
  );
  await waitForPort(opts.port, '127.0.0.1', 60_000, child);
  for (let i = 0; socket && !existsSync(socket) && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
  return child;
}

/**
 * FerretDB's Unix socket in the data folder, beside its TCP port: a database round trip through it costs
 * ~15% less CPU in the client and ~8% in FerretDB than through loopback TCP (measured with 3,000 reads by
 * `_id`), and the service makes dozens a job. None when the path is too long for a socket address.
 */
export function ferretDbSocket(dataDir: string): string | undefined {
  const socket = join(resolve(dataDir, 'ferretdb'), 'ferretdb.sock');
  return socket.length <= 100 ? socket : undefined;
}

/** The URI the embedded FerretDB is reached at: its socket when it has one, else its port. */
export function ferretDbUri(dataDir: string, port: number): string {
  const socket = ferretDbSocket(dataDir);
  return socket ? `mongodb://${encodeURIComponent(socket)}/` : `mongodb://127.0.0.1:${port}/`;
}
