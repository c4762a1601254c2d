// A local web site for tests: fixed pages plus per-test routes, on a random loopback port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface FixtureSite {
  url: string;
  route(path: string, handler: Handler | string): void;
  hits: string[];
  close(): Promise<void>;
}

export const html = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** On 127.0.0.1 unless told otherwise (another loopback address stands in for a private host). */
export async function startFixtureSite(host = '127.0.0.1'): Promise<FixtureSite> {
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.push(req.url ?? '/');
    const handler = routes.get(path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/html' }).end(html('Not found', '<h1>Not found</h1>'));
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    hits,
    route(path, handler) {
      routes.set(
        path,
        typeof handler === 'string'
          ? (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(handler)
          : handler,
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
