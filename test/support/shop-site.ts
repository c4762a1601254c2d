// A small shop for crawl tests: two listing pages (paginated), ten product pages, a robots.txt that
// disallows one product, a product that fails (410 Gone), a redirect loop, and a trap of endless links.
import { type FixtureSite, html, startFixtureSite } from './fixture-site.js';

export interface ShopSite extends FixtureSite {
  /** Requests in flight now and the most seen at once. */
  inFlight: { now: number; max: number };
  /** Start times (ms) of product page requests. */
  productStarts: number[];
}

/** The shop's product ids; product 4 is disallowed by robots.txt, product 7 answers 410 Gone. */
export const PRODUCTS = Array.from({ length: 10 }, (_, i) => i + 1);
const products = PRODUCTS;

/** A listing page: five products, links to the about page and another site, and the next page if any. */
export const listingPage = (page: number, ids: number[], next: string | null) =>
  html(
    `Products page ${page}`,
    `<h1>Products page ${page}</h1><ul class="products">${ids
      .map((id) => `<li><a class="product" href="/product/${id}#reviews">Product ${id}</a></li>`)
      .join('')}</ul>
       <a href="/about">About us</a> <a href="https://elsewhere.example/x">Elsewhere</a>
       ${next ? `<a class="next" href="${next}">Next</a>` : ''}`,
  );

export const productPage = (id: number) =>
  html(
    `Product ${id}`,
    `<h1>Product ${id}</h1><p>Price: ${id * 10}</p><p>${'A fine product. '.repeat(20)}</p>
               <a href="/trap/1">Related</a> <a href="/loop">Deal</a>`,
  );

export const ABOUT = html('About', '<h1>About</h1><p>We sell things. '.repeat(10));

/** A page of the trap of endless links: twenty links to further trap pages. */
export const trapPage = (i: number) =>
  html(
    `Trap ${i}`,
    `<h1>Trap ${i}</h1>${Array.from({ length: 20 }, (_, k) => `<a href="/trap/${i * 20 + k}">more</a>`).join('')}`,
  );

export async function startShopSite(opts: { productDelayMs?: number } = {}): Promise<ShopSite> {
  const site = (await startFixtureSite()) as ShopSite;
  site.inFlight = { now: 0, max: 0 };
  site.productStarts = [];
  const listing = listingPage;
  site.route('/robots.txt', (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /product/4\n'),
  );
  site.route('/about', ABOUT);
  for (const id of products) {
    site.route(`/product/${id}`, (req, res) => {
      if (process.env.SHOP_DEBUG) process.stderr.write(`[shop] ${Date.now()} ${req.url}\n`);
      site.productStarts.push(Date.now());
      site.inFlight.now++;
      site.inFlight.max = Math.max(site.inFlight.max, site.inFlight.now);
      setTimeout(() => {
        site.inFlight.now--;
        if (id === 7) {
          res.writeHead(410, { 'content-type': 'text/html' }).end('<h1>Gone</h1>');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(productPage(id));
      }, opts.productDelayMs ?? 0);
    });
  }
  // A listing's page 2 is served from the same path with a query string.
  const root = site.route.bind(site);
  root('/', (req, res) => {
    const page = new URL(req.url ?? '/', site.url).searchParams.get('page');
    const body =
      page === '2' ? listing(2, products.slice(5), null) : listing(1, products.slice(0, 5), '/?page=2');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  site.route('/loop', (_req, res) => res.writeHead(302, { location: '/loop2' }).end());
  site.route('/loop2', (_req, res) => res.writeHead(302, { location: '/loop' }).end());
  for (let i = 1; i <= 50; i++) {
    site.route(`/trap/${i}`, trapPage(i));
  }
  return site;
}
