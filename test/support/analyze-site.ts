// A small site for analyze tests, one page of each kind, with known counts (ANALYZE_COUNTS): a product listing
// with pagination, product detail pages, an article, and a listing that only exists after its script runs.
import { type FixtureSite, html, startFixtureSite } from './fixture-site.js';

export const PRODUCT_COUNT = 12;
const APP_ITEMS = 6;

/** What each page holds, as the analysis must count it. */
export const ANALYZE_COUNTS = {
  listing: {
    items: PRODUCT_COUNT,
    pagination: 2,
    headings: 1,
    images: PRODUCT_COUNT,
    prices: PRODUCT_COUNT,
    forms: 1,
    navigation: 4,
  },
  product: { headings: 1, prices: 1, forms: 2, images: 1, navigation: 4 },
  article: { headings: 3, dates: 1, textBlocks: 8, navigation: 4 },
  app: { items: APP_ITEMS },
} as const;

const HEADER = `<header><nav><a href="/">Home</a> <a href="/products">Products</a> <a href="/about">About</a>
  <a href="/contact">Contact</a></nav><form action="/search"><input name="q" placeholder="Search"></form></header>`;
const FOOTER = '<footer><p>© Acme Kitchen Supplies</p></footer>';
const page = (title: string, body: string) => html(title, `${HEADER}<main>${body}</main>${FOOTER}`);

const name = (id: number) => `Kettle model ${id}`;
const price = (id: number) => (10 + id * 1.5).toFixed(2);

function listing(pageNo: number): string {
  const cards = Array.from({ length: PRODUCT_COUNT }, (_, i) => i + 1 + (pageNo - 1) * PRODUCT_COUNT)
    .map(
      (id) => `<li class="product-card"><a class="product-link" href="/product/${id}">${name(id)}</a>
        <img src="/img/${id}.jpg" alt=""><span class="price">$${price(id)}</span><span class="brand">Acme</span></li>`,
    )
    .join('');
  return page(
    `Kettles – page ${pageNo}`,
    `<h1>All kettles</h1><ul class="products">${cards}</ul>
     <div class="pagination"><a href="/products?page=2">2</a> <a href="/products?page=3">3</a>
       <a rel="next" href="/products?page=2">Next</a></div>`,
  );
}

function product(id: number): string {
  return page(
    name(id),
    `<h1>${name(id)}</h1><img src="/img/${id}.jpg" alt="${name(id)}"><span class="price">$${price(id)}</span>
     <dl><dt>Brand</dt><dd>Acme</dd><dt>Capacity</dt><dd>1.7 litres</dd><dt>Colour</dt><dd>Blue</dd></dl>
     <p>A kettle that boils water quickly and quietly, with an automatic shut-off, a removable limescale
     filter and a window to see the water level.</p>
     <form action="/cart" method="post"><select name="qty"><option>1</option><option>2</option></select>
     <button>Add to cart</button></form>`,
  );
}

const PARAGRAPH =
  'Quiet kettles have become a category of their own. Manufacturers now list the noise level next to the ' +
  'capacity, and reviewers measure it with a decibel meter at one metre. ';

function article(): string {
  const paragraphs = Array.from({ length: 8 }, (_, i) => `<p>${PARAGRAPH}Point ${i + 1} of the story.</p>`);
  return page(
    'Why quiet kettles win',
    `<article><h1>Why quiet kettles win</h1><p class="byline">By Ada Example</p>
     <time datetime="2024-03-03">3 March 2024</time>
     <h2>What we measured</h2>${paragraphs.slice(0, 4).join('')}
     <h2>What we found</h2>${paragraphs.slice(4).join('')}</article>`,
  );
}

/** A listing rendered client-side: the static HTML is an empty mount point and a script. */
function app(): string {
  const items = Array.from({ length: APP_ITEMS }, (_, i) => ({
    id: i + 1,
    name: name(i + 1),
    price: price(i + 1),
  }));
  return `<!doctype html><html><head><meta charset="utf-8"><title>Kettle app</title></head><body>
<div id="root"></div>
<script>
  const items = ${JSON.stringify(items)};
  document.getElementById('root').innerHTML = '<h1>Kettles</h1><ul class="items">' + items.map((it) =>
    '<li class="item"><a class="item-link" href="/product/' + it.id + '">' + it.name + '</a> <span class="price">$' +
    it.price + '</span></li>').join('') + '</ul>';
</script></body></html>`;
}

export async function startAnalyzeSite(): Promise<FixtureSite> {
  const site = await startFixtureSite();
  site.route('/products', (req, res) => {
    const pageNo = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(listing(pageNo));
  });
  for (let id = 1; id <= PRODUCT_COUNT * 3; id++) site.route(`/product/${id}`, product(id));
  site.route('/blog/quiet-kettles', article());
  site.route('/app', app());
  return site;
}
