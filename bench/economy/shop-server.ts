// Serves the generated shop on 127.0.0.1: /shop/list/N, /shop/item/K and a robots.txt that allows all.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Catalogue } from './catalogue.js';
import { itemPage, listingPage } from './shop-html.js';

export interface ShopServer {
  url: string;
  close(): Promise<void>;
}

export async function startShop(cat: Catalogue): Promise<ShopServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const list = /^\/shop\/list\/(\d+)$/.exec(path);
    const item = /^\/shop\/item\/(\d+)$/.exec(path);
    const product = item ? cat.products[Number(item[1]) - 1] : undefined;
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    } else if (list && Number(list[1]) >= 1 && Number(list[1]) <= cat.listings) {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(listingPage(cat, Number(list[1])));
    } else if (product) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(itemPage(cat, product));
    } else {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
