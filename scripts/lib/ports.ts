// Free loopback ports for the embedded servers (tests run several stacks side by side).
import { createServer } from 'node:net';

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port p such that p and p + each offset are all free (Temporal uses p+10 and p+20 too). */
export async function freePort(offsets: number[] = []): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const all = [port, ...offsets.map((o) => port + o)];
    if ((await Promise.all(all.map((p) => isPortFree(p)))).every(Boolean)) return port;
  }
  throw new Error('no free port found');
}
