// The worker's own GET /metrics (activities run here, so their counts live here): a small HTTP server on
// WORKER_METRICS_HOST:WORKER_METRICS_PORT (127.0.0.1 by default; port 0 = none), METRICS_TOKEN if set.
// Without a token it serves on loopback only, as the API does: a wider host then starts no server.
// The Temporal SDK's own series (its Prometheus exporter, on a loopback port of its own) are appended to each
// scrape, so one target per worker process carries every series the dashboard and the alert rules use.
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import type { Registry } from 'prom-client';
import type { Config } from '../shared/config.js';
import { scrape } from '../shared/metrics/scrape.js';
import { isLoopbackHost } from '../shared/net/loopback-host.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

type MetricsServerConfig = Pick<Config, 'WORKER_METRICS_HOST' | 'WORKER_METRICS_PORT' | 'METRICS_TOKEN'>;

/** How long a scrape waits for the SDK's exporter, and how much of its answer it takes. */
const SDK_SCRAPE_TIMEOUT_MS = 2_000;
const SDK_SCRAPE_MAX_BYTES = 4 * 1024 * 1024;

/** A port free on loopback now: where the SDK's exporter listens when no TEMPORAL_METRICS_PORT is set. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The SDK exporter's text, or a comment saying why it is missing (the scrape still answers). */
async function sdkSeries(url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(SDK_SCRAPE_TIMEOUT_MS) });
    const text = await res.text();
    if (!res.ok) return `# the Temporal SDK's metrics answered ${res.status}\n`;
    const body = text.length > SDK_SCRAPE_MAX_BYTES ? '' : text;
    return body.endsWith('\n') || body === '' ? body : `${body}\n`;
  } catch {
    return "# the Temporal SDK's metrics did not answer\n";
  }
}

export async function startMetricsServer(
  registry: Registry,
  config: MetricsServerConfig,
  /** The SDK exporter's /metrics, appended to every scrape. */
  sdkMetricsUrl?: string,
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
    scrape(registry, req.headers.authorization, config.METRICS_TOKEN)
      .then(async (answer) => {
        const sdk = answer.status === 200 && sdkMetricsUrl ? await sdkSeries(sdkMetricsUrl) : '';
        return { ...answer, body: answer.body + sdk };
      })
      .then(
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
