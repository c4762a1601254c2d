// API processes of their own (`api/main.ts`, the start code `npm start` runs) with a test service's config,
// for tests of several API processes behind one address.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Config } from '../../shared/config.js';

export interface ApiProcess {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/** A port free on loopback now (the process is told it, so the proxy knows where to send). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts `api/main.ts` with `config` (and `env` over it) on a free port; resolves once /healthz answers. */
export async function spawnApiProcess(config: Config, env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const configEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) if (v !== undefined) configEnv[k] = String(v);
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: {
      ...process.env,
      ...configEnv,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'error',
      OTEL_SDK_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API process exited: ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the API process did not answer /healthz within 60 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
