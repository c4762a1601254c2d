// `npm start` supervises its children: a worker or API killed with SIGKILL is restarted, the API
// answers again and a job submitted afterwards completes; a child that fails at every start ends npm start
// with a clear message and a non-zero exit instead of restarting it for ever.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, isPortFree } from '../../../scripts/lib/ports.js';
import { type FakeLlmServer, startFakeLlmServer } from '../../support/fake-llm-server.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';

let llm: FakeLlmServer;
let site: FixtureSite;
const dataDirs: string[] = [];

before(async () => {
  llm = await startFakeLlmServer();
  site = await startFixtureSite();
  site.route('/book', html('A Book', '<h1>The Long Road</h1><p>Author: Ada Lovelace</p><p>Pages: 312</p>'));
});
after(async () => {
  await site?.close();
  await llm?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

interface Started {
  proc: ChildProcess;
  api: string;
  ports: number[];
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

/** scripts/start.ts with its own ports and DATA_DIR; resolves with the process, once `ready` holds. */
async function npmStart(
  env: Record<string, string> = {},
  ready = /Ctrl-C stops everything/,
): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'extract-durability-'));
  dataDirs.push(dataDir);
  const [api, ferret, temporal, ui] = [
    await freePort(),
    await freePort(),
    await freePort([10, 20]),
    await freePort(),
  ];
  const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(api),
      FERRETDB_PORT: String(ferret),
      TEMPORAL_PORT: String(temporal),
      TEMPORAL_UI_PORT: String(ui),
      TEMPORAL_TASK_QUEUE: 'durability',
      MONGODB_URI: '',
      TEMPORAL_ADDRESS: '',
      SERVICE_BOOTSTRAP_API_KEY: '',
      ALLOW_PRIVATE_ADDRESSES: 'true',
      OPENAI_API_KEY: 'sk-durability',
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Started = {
    proc,
    api: `http://127.0.0.1:${api}`,
    ports: [api, ferret, temporal, ui],
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => proc.once('exit', (code) => resolve(code))),
  };
  proc.stdout?.on('data', (chunk: Buffer) => {
    started.stdout += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    started.stderr += chunk.toString();
  });
  await until(() => ready.test(started.stdout + started.stderr), 180_000, started);
  return started;
}

/** Waits for `check` (polled every 100 ms); fails with npm start's messages if it exits first. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, started?: Started) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (started && started.proc.exitCode !== null && !check())
      throw new Error(`npm start exited (${started.proc.exitCode}):\n${started.stderr.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`timed out:\n${started?.stderr.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pid of npm start's child whose command line names `entry` (Linux /proc). */
function childPid(parent: number, entry: string): number {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(entry)) return Number(pid);
    } catch {} // the process ended while we looked
  }
  throw new Error(`no child running ${entry}`);
}

async function extractBook(started: Started, key: string) {
  const res = await fetch(`${started.api}/api/v1/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/book`, schema: { title: 'string', author: 'string' } }),
  });
  const body = (await res.json()) as { status: string; data: unknown };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.data, { title: 'The Long Road', author: 'Ada Lovelace' });
}

const answers = async (url: string) => {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
};

test('npm start restarts a killed worker and a killed API; jobs submitted after each restart complete', {
  timeout: 600_000,
}, async () => {
  const started = await npmStart();
  const key = /sk_[A-Za-z0-9_-]+/.exec(started.stdout)?.[0];
  assert.ok(key, 'the first start prints an API key');
  await extractBook(started, key);

  const pid = started.proc.pid as number;
  const worker = childPid(pid, 'dist/node/worker.mjs');
  process.kill(worker, 'SIGKILL');
  await until(() => started.stderr.includes('[start] worker restarted'), 60_000, started);
  assert.match(started.stderr, /\[start\] worker exited \(signal SIGKILL\); restarting in 1 s \(restart 1\)/);
  assert.notEqual(childPid(pid, 'dist/node/worker.mjs'), worker, 'a new worker process runs');
  await extractBook(started, key);

  process.kill(childPid(pid, 'dist/node/api.mjs'), 'SIGKILL');
  const killedAt = Date.now();
  await until(() => started.stderr.includes('[start] api exited'), 10_000, started);
  await until(() => answers(`${started.api}/readyz`), 60_000, started);
  const downMs = Date.now() - killedAt;
  assert.match(started.stderr, /\[start\] api exited \(signal SIGKILL\); restarting in 1 s \(restart 1\)/);
  process.stderr.write(`# the API answered again ${downMs} ms after its SIGKILL\n`);
  await extractBook(started, key);

  started.proc.kill('SIGTERM');
  assert.equal(await started.exited, 0, 'npm start exits cleanly on SIGTERM');
  for (const port of started.ports) assert.ok(await isPortFree(port), `port ${port} is released`);
});

test('a child that fails at every start ends npm start with a crash-loop message and exit code 1', {
  timeout: 300_000,
}, async () => {
  // The API serves (its Temporal client is lazy); the worker fails at start on the unknown namespace.
  // Back-offs from 100 ms instead of 1 s: the same doubling, 1.5 s of waiting instead of 15.
  const started = await npmStart(
    { TEMPORAL_NAMESPACE: 'no-such-namespace', NPM_START_FIRST_RESTART_DELAY_MS: '100' },
    /worker exited/,
  );
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    started.exited,
    new Promise((r) => {
      timer = setTimeout(() => r('still running'), 240_000);
    }),
  ]);
  clearTimeout(timer);
  assert.equal(code, 1, started.stderr.slice(-3000));
  assert.match(started.stderr, /restarting in 0\.8 s \(restart 4\)/);
  assert.match(started.stderr, /worker exited 5 times in a row, each within 60 s of the one before/);
  assert.match(started.stderr, /crash loop, so npm start gives up/);
  assert.match(started.stderr, /\[start\] stopped/);
  for (const port of started.ports) assert.ok(await isPortFree(port), `port ${port} is released`);
});
