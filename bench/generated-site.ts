// The generated shop of the crawl benches: /list/1..L link 20 items each and the next listing; /item/k are
// detail pages. Served on 127.0.0.1 at any free port. `truthOf` gives what a page says (its ground truth).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestService } from '../test/support/service.js';

export const PER_LISTING = 20;

export interface GeneratedSite {
  url: string;
  /** Number of listing pages: enough for `pages` pages in all (listings and items). */
  listings: number;
  close(): Promise<void>;
}

/** What a page of the site says, in the benches' schema `{ title: string, price: number }`. */
export function truthOf(path: string): { title: string; price: number | null } | null {
  const list = /^\/list\/(\d+)$/.exec(path);
  if (list) return { title: `List ${list[1]}`, price: null };
  const item = /^\/item\/(\d+)$/.exec(path);
  if (item) return { title: `Item ${item[1]}`, price: Number(item[1]) % 97 };
  return null;
}

/**
 * `pageScript` adds a small inline script to every page (a render then waits for the network to go quiet).
 * `itemBytes` pads each item page to about that many bytes with text of its own (the same on every fetch):
 * real product pages weigh tens of KB, and the page store keeps each distinct body.
 */
export async function startGeneratedSite(opts: {
  pages: number;
  pageScript?: boolean;
  itemBytes?: number;
}): Promise<GeneratedSite> {
  const script = opts.pageScript
    ? `<script>document.body.insertAdjacentHTML('beforeend', '<p>Written by a script.</p>');</script>`
    : '';
  const listings = Math.ceil((opts.pages - 1) / (PER_LISTING + 1)) + 1;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const list = /^\/list\/(\d+)$/.exec(url.pathname);
    const item = /^\/item\/(\d+)$/.exec(url.pathname);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (list) {
      const n = Number(list[1]);
      const items = Array.from({ length: PER_LISTING }, (_, i) => (n - 1) * PER_LISTING + i + 1);
      const next = n < listings ? `<a class="next" href="/list/${n + 1}">next</a>` : '';
      res.end(
        `<html><head><title>List ${n}</title></head><body><h1>List ${n}</h1>${items.map((k) => `<a class="item" href="/item/${k}">Item ${k}</a>`).join(' ')}${next}${script}</body></html>`,
      );
    } else if (item) {
      res.end(
        `<html><head><title>Item</title></head><body><h1>Item ${item[1]}</h1><p>Price: ${Number(item[1]) % 97}</p><p>${'Words about the item. '.repeat(30)}</p>${padding(Number(item[1]), opts.itemBytes ?? 0)}${script}</body></html>`,
      );
    } else if (url.pathname === '/robots.txt') {
      res.end('User-agent: *\nAllow: /\n');
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    listings,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** About `bytes` of reviews below an item, varied by item so that no two item pages share a body. */
function padding(item: number, bytes: number): string {
  const parts: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    const block = `<div class="review r${n}"><h3>Review ${n} of item ${item}</h3><p>Customer ${(item * 31 + n) % 1000} wrote ${n % 5} stars about item ${item}: it arrived on day ${(item + n) % 28}.</p></div>`;
    parts.push(block);
    size += block.length;
  }
  return parts.join('');
}

export type CrawlJobState = { status: string; page_count: number; failed_count: number };

/**
 * Crawls `max` pages of the site through the API (from its first listing, items and next listings, robots
 * respected) and polls the job every 500 ms until it ends; `onPoll` sees each state (progress lines).
 */
export async function crawlGeneratedSite(
  svc: Pick<TestService, 'app' | 'auth'>,
  siteUrl: string,
  opts: { max: number; concurrency: number; fetchMode: string },
  onPoll?: (job: CrawlJobState, jobId: string) => void,
): Promise<{ jobId: string; job: CrawlJobState }> {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/crawl',
    headers: svc.auth(),
    payload: {
      url: `${siteUrl}/list/1`,
      schema: { title: 'string', price: 'number' },
      fetch_mode: opts.fetchMode,
      options: {
        follow_selector: 'a.item',
        next_selector: 'a.next',
        max_pages: opts.max,
        max_depth: 1,
        concurrency: opts.concurrency,
        respect_robots: true,
      },
    },
  });
  const jobId = res.json().job_id as string;
  let job: CrawlJobState = { status: 'pending', page_count: 0, failed_count: 0 };
  while (!['completed', 'failed', 'cancelled'].includes(job.status)) {
    await new Promise((r) => setTimeout(r, 500));
    job = (await svc.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: svc.auth() })).json();
    onPoll?.(job, jobId);
  }
  return { jobId, job };
}
