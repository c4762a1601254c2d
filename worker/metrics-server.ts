// The worker's own GET /metrics (activities run here, so their counts live here): a small HTTP server on
// WORKER_METRICS_HOST:WORKER_METRICS_PORT (127.0.0.1 by default; port 0 = none), METRICS_TOKEN if set.
// Without a token it serves on loopback only, as the API does: a wider host then starts no server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Config } from '../shared/config.js';
import { scrape } from '../shared/metrics/scrape.js';
import { isLoopbackHost } from '../shared/net/loopback-host.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

type MetricsServerConfig = Pick<Config, 'WORKER_METRICS_HOST' | 'WORKER_METRICS_PORT' | 'METRICS_TOKEN'>;

export async function startMetricsServer(
  registry: Registry,
  config: MetricsServerConfig,
): Promise<MetricsServer | null> {
  if (config.WORKER_METRICS_PORT === 0) return null;
  if (!config.METRICS_TOKEN && !isLoopbackHost(config.WORKER_METRICS_HOST)) {
    console.warn(
      `worker /metrics is off: WORKER_METRICS_HOST ${config.WORKER_METRICS_HOST} is beyond loopback and METRICS_TOKEN is not set`,
    );
    return null;
  }
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    scrape(registry, req.headers.authorization, config.METRICS_TOKEN).then(
      (answer) =>
        res
          .writeHead(answer.status, { ...answer.headers, 'content-type': answer.contentType })
          .end(answer.body),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.WORKER_METRICS_PORT, config.WORKER_METRICS_HOST, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
