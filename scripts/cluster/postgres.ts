// The cluster's PostgreSQL: Debian's server programs (scripts/cluster/install-postgres.sh) running a data
// folder of its own on 127.0.0.1, as an unprivileged user (the `postgres` account when we are root: the
// server refuses to run as root). Stopped with SIGINT (a fast shutdown: open sessions are ended, which is
// what a restart under load needs; SIGTERM would wait for every client to leave).
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Child, waitForPort } from '../lib/processes.js';

export interface PostgresOptions {
  binDir: string;
  dataDir: string;
  port: number;
  user: string;
  password: string;
  quiet?: boolean;
}

/** uid/gid of the account the server runs as (none when we are not root: it runs as us). */
function serverAccount(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root needs the postgres account');
  return { uid, gid: id('-g') };
}

/** Runs a server program as the server's account. */
function asServer(account: { uid: number; gid: number } | null, program: string, args: string[]) {
  return account
    ? {
        command: 'setpriv',
        args: [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--', program, ...args],
      }
    : { command: program, args };
}

/** Makes the data folder (initdb) on the first start; later starts reuse it. */
export function initPostgres(opts: PostgresOptions): void {
  const account = serverAccount();
  const pgdata = join(opts.dataDir, 'pgdata');
  if (existsSync(join(pgdata, 'PG_VERSION'))) return;
  mkdirSync(opts.dataDir, { recursive: true });
  const pwfile = join(opts.dataDir, 'initdb.pw');
  writeFileSync(pwfile, `${opts.password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(opts.dataDir, account.uid, account.gid);
    chownSync(pwfile, account.uid, account.gid);
  }
  const { command, args } = asServer(account, join(opts.binDir, 'initdb'), [
    '-D',
    pgdata,
    '-U',
    opts.user,
    `--pwfile=${pwfile}`,
    '--auth-host=scram-sha-256',
    '--auth-local=peer',
    '-E',
    'UTF8',
    '--no-instructions',
  ]);
  const res = spawnSync(command, args, { encoding: 'utf8', cwd: '/' });
  if (res.status !== 0) throw new Error(`initdb failed: ${res.stderr || res.stdout}`);
}

export async function startPostgres(opts: PostgresOptions): Promise<Child> {
  const account = serverAccount();
  const { command, args } = asServer(account, join(opts.binDir, 'postgres'), [
    '-D',
    join(opts.dataDir, 'pgdata'),
    '-p',
    String(opts.port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${opts.dataDir}`,
    '-c',
    'max_connections=200',
    '-c',
    'log_min_messages=warning',
  ]);
  const proc = spawn(command, args, { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [proc.stdout, proc.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      if (!opts.quiet) process.stderr.write(`[postgres] ${chunk}`);
    });
  }
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child: Child = {
    name: 'postgres',
    proc,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGINT');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  await waitForPort(opts.port, '127.0.0.1', 60_000, child);
  return child;
}
