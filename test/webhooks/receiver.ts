// A webhook receiver on 127.0.0.1 for tests: records every request (raw body bytes, headers, arrival time)
// and answers each path with a queue of statuses (the last one repeats).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  on(path: string): Received[];
  /** Statuses answered on `path`, in order; the last repeats. Default 200. */
  answer(path: string, statuses: number[]): void;
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const plans = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const plan = plans.get(path) ?? [200];
      const status = plan.length > 1 ? (plan.shift() as number) : (plan[0] as number);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const on = (path: string) => received.filter((r) => r.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    on,
    answer: (path, statuses) => plans.set(path, [...statuses]),
    async waitFor(path, count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (on(path).length < count) {
        if (Date.now() > deadline) throw new Error(`${path}: ${on(path).length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return on(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
