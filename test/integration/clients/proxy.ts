// An HTTP proxy on 127.0.0.1 in front of the service, for client tests: it records requests and can answer a
// request itself (a 429 with Retry-After) or cut a stream after N Server-Sent Events (a dropped connection).
import { createServer, type IncomingHttpHeaders, request as upstream } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
}

export type Plan =
  | { kind: 'forward' }
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'cut-after-events'; events: number };

export interface TestProxy {
  url: string;
  seen: Seen[];
  /** Decides what to do with each request (default: forward). */
  plan: (seen: Seen, index: number) => Plan;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<TestProxy> {
  const to = new URL(target);
  const proxy: TestProxy = { url: '', seen: [], plan: () => ({ kind: 'forward' }), close: async () => {} };
  const server = createServer((req, res) => {
    const seen = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, at: Date.now() };
    const plan = proxy.plan(seen, proxy.seen.length);
    proxy.seen.push(seen);
    if (plan.kind === 'answer') {
      req.resume();
      res.writeHead(plan.status, plan.headers).end(plan.body);
      return;
    }
    const out = upstream(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let events = 0;
        answer.on('data', (chunk: Buffer) => {
          if (plan.kind === 'cut-after-events') events += chunk.toString('utf8').split('\n\n').length - 1;
          if (plan.kind !== 'cut-after-events' || events < plan.events) {
            res.write(chunk);
            return;
          }
          answer.destroy();
          // The client sees its connection drop mid-stream, after this chunk: destroyed at once, the socket
          // would drop the chunk still corked in it (all the events, when the first chunk held them all).
          res.write(chunk, () => res.destroy());
        });
        answer.on('end', () => res.end());
      },
    );
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
