// A small HTTP load balancer standing in for a real one (nginx, an ALB, a Kubernetes Service) in front of
// several API processes: requests go round-robin to the backends; a backend that refuses the connection is
// skipped for a while and the request goes to the next one (its body is buffered, up to a bound, so it can
// be sent again), like nginx's proxy_next_upstream on a connect error. A request whose backend dies after
// the connection was made is answered 502, as a real balancer would: the client retries it (with its
// Idempotency-Key). Responses, SSE streams included, are piped through unchanged.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Backend {
  host: string;
  port: number;
}

export interface RoundRobinProxy {
  port: number;
  /** Requests each backend answered, by `host:port`. */
  served: Map<string, number>;
  close(): Promise<void>;
}

/** Larger bodies are refused: the API's own limit on a request body is far below it. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** How long a backend that refused a connection is skipped. */
const DOWN_FOR_MS = 2_000;

export async function startRoundRobinProxy(
  backends: Backend[],
  listen: { host?: string; port?: number } = {},
): Promise<RoundRobinProxy> {
  const served = new Map<string, number>();
  const downUntil = new Map<string, number>();
  let next = 0;
  const name = (b: Backend) => `${b.host}:${b.port}`;

  const pick = (): Backend[] => {
    const start = next++ % backends.length;
    const order = [...backends.slice(start), ...backends.slice(0, start)];
    const up = order.filter((b) => (downUntil.get(name(b)) ?? 0) <= Date.now());
    return up.length > 0 ? up : order;
  };

  const forward = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: Buffer,
    candidates: Backend[],
  ): void => {
    const [backend, ...rest] = candidates;
    if (!backend) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('no backend answered');
      return;
    }
    const upstream = http.request(
      {
        host: backend.host,
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      },
      (answer) => {
        served.set(name(backend), (served.get(name(backend)) ?? 0) + 1);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && !res.headersSent) {
        downUntil.set(name(backend), Date.now() + DOWN_FOR_MS);
        forward(req, res, body, rest);
        return;
      }
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('backend failed');
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('body too large');
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => forward(req, res, Buffer.concat(chunks), pick()));
  });
  await new Promise<void>((resolve) => server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
