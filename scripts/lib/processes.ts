// Child processes of the local stack: started with their output prefixed, stopped together.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';

export interface Child {
  name: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export function startChild(
  name: string,
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; quiet?: boolean; cwd?: string } = {},
): Child {
  const proc = spawn(command, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  const prefix = (chunk: Buffer) => {
    if (opts.quiet) return;
    for (const line of chunk.toString().split('\n'))
      if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
  };
  proc.stdout?.on('data', prefix);
  proc.stderr?.on('data', prefix);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    name,
    proc,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function waitForPort(
  port: number,
  host = '127.0.0.1',
  timeoutMs = 60_000,
  child?: Child,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.proc.exitCode !== null)
      throw new Error(`${child.name} exited with code ${child.proc.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${host}:${port}`);
}
