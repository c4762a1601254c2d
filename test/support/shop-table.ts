// The shop of shop-site.ts as a page table for the fake activities (fake-activities.ts): the same listings,
// products (product 7 answers 410 Gone, products wait `productDelayMs`), about and trap pages. The fake
// activities read no robots.txt (product 4 is crawled like the others) and the table runs no redirects (the
// redirect loop's /loop answers 404).
import { type PageTable, pageTable } from './fake-activities.js';
import { ABOUT, listingPage, PRODUCTS, productPage, trapPage } from './shop-site.js';

export function shopTable(opts: { productDelayMs?: number } = {}): PageTable {
  const site = pageTable('https://shop.test');
  site.route('/', listingPage(1, PRODUCTS.slice(0, 5), '/?page=2'));
  site.route('/?page=2', listingPage(2, PRODUCTS.slice(5), null));
  site.route('/about', ABOUT);
  for (const id of PRODUCTS) {
    const page = id === 7 ? { status: 410, body: '<h1>Gone</h1>' } : productPage(id);
    site.route(
      `/product/${id}`,
      () => new Promise((done) => setTimeout(() => done(page), opts.productDelayMs ?? 0)),
    );
  }
  for (let i = 1; i <= 50; i++) site.route(`/trap/${i}`, trapPage(i));
  return site;
}
