// The shop's HTML: one item template (and the deviating layouts), listing pages, and the chrome every page
// shares (header navigation, breadcrumbs, footer), close to what a small real shop serves.
import { type Catalogue, listingItems, type Product } from './catalogue.js';

const SHOP = 'Northfield Goods';
const CATEGORIES = ['kitchen', 'outdoor', 'home', 'audio'];

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const title = (s: string) => s[0]?.toUpperCase() + s.slice(1);

/** "$24.99", "£24.99", "24,99 €" (the euro the continental way). */
export function money(amount: number, currency: Product['currency']): string {
  if (currency === 'EUR') return `${amount.toFixed(2).replace('.', ',')} €`;
  return `${currency === 'GBP' ? '£' : '$'}${amount.toFixed(2)}`;
}

function page(head: { title: string; description: string; extra?: string }, body: string): string {
  const nav = CATEGORIES.map((c) => `<li><a href="/shop/category/${c}">${title(c)}</a></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(head.title)} | ${SHOP}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${escapeHtml(head.description)}">
<link rel="stylesheet" href="/static/shop.css">${head.extra ?? ''}</head>
<body>
<div class="promo-bar">Free shipping on orders over 50 — <a href="/shop/shipping">details</a></div>
<header class="site-header"><a class="logo" href="/shop">${SHOP}</a>
<nav class="main-nav"><ul>${nav}<li><a href="/shop/sale">Sale</a></li><li><a href="/shop/account">Account</a></li><li><a href="/shop/cart">Cart (0)</a></li></ul></nav>
<form class="search" action="/shop/search"><input name="q" placeholder="Search products"><button>Search</button></form>
</header>
${body}
<footer class="site-footer">
<nav><ul><li><a href="/shop/about">About us</a></li><li><a href="/shop/contact">Contact</a></li><li><a href="/shop/returns">Returns</a></li><li><a href="/shop/privacy">Privacy</a></li><li><a href="/shop/terms">Terms</a></li></ul></nav>
<p>Sign up for our newsletter and get news about new arrivals first.</p>
<p>© 2026 ${SHOP}. Prices include VAT where applicable.</p>
</footer>
</body></html>`;
}

function breadcrumbs(trail: [string, string][], current: string): string {
  const links = trail.map(([href, text]) => `<li><a href="${href}">${escapeHtml(text)}</a></li>`).join('');
  return `<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/shop">Home</a></li>${links}<li aria-current="page">${escapeHtml(current)}</li></ol></nav>`;
}

function jsonLd(p: Product): string {
  const full = p.jsonLd === 'full';
  const data = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: p.name,
    ...(full ? { sku: p.sku, brand: { '@type': 'Brand', name: p.brand } } : {}),
    description: p.description[0],
    image: `/static/img/${p.id}.jpg`,
    offers: {
      '@type': 'Offer',
      price: p.price.toFixed(2),
      priceCurrency: p.currency,
      availability: `https://schema.org/${p.inStock ? 'InStock' : 'OutOfStock'}`,
      url: `/shop/item/${p.id}`,
    },
  };
  return `\n<script type="application/ld+json">${JSON.stringify(data)}</script>`;
}

/** The product's title heading; in the variant shop, maybe with a subtitle inside it (not part of the name). */
function heading(p: Product): string {
  const sub = p.look?.subtitle ? ` <span class="subtitle">${escapeHtml(p.look.subtitle)}</span>` : '';
  return `<h1 class="product-title">${escapeHtml(p.name)}${sub}</h1>`;
}

/** The template's buy box, or a deviating page's. */
function buyBox(p: Product): string {
  const stock = `<p class="availability ${p.inStock ? 'in-stock' : 'out-of-stock'}">${escapeHtml(p.availability)}</p>`;
  const currency = `<abbr class="currency">${p.currency}</abbr>`;
  switch (p.deviation) {
    case 'alternate-layout':
      // A page from an older template: name in an h2, facts in a spec table, the SKU as "Item number".
      return `<div class="pdp-header"><h2 class="pdp-name">${escapeHtml(p.name)}</h2><span class="pdp-maker">by ${escapeHtml(p.brand)}</span></div>
<table class="pdp-specs"><tr><th>Item number</th><td>${p.sku}</td></tr><tr><th>Our price</th><td><b>${money(p.price, p.currency)}</b> (${p.currency})</td></tr><tr><th>Availability</th><td>${escapeHtml(p.availability)}</td></tr></table>`;
    case 'sale':
      // WooCommerce-style sale markup: the old price struck through inside the same .price element.
      return `${heading(p)}
<p class="brand">Brand: <a href="/shop/brand/${slug(p.brand)}">${escapeHtml(p.brand)}</a></p>
<p class="price-box on-sale"><span class="price"><del>${money(p.oldPrice ?? p.price, p.currency)}</del> <ins>${money(p.price, p.currency)}</ins></span> ${currency} <span class="badge">Sale</span></p>
<p class="sku">SKU: ${p.sku}</p>${stock}`;
    case 'missing-fields':
      return `${heading(p)}
<p class="price-box"><span class="price">${money(p.price, p.currency)}</span> ${currency}</p>${stock}`;
    default:
      return `${heading(p)}
<p class="brand">Brand: <a href="/shop/brand/${slug(p.brand)}">${escapeHtml(p.brand)}</a></p>
<p class="price-box"><span class="price">${money(p.price, p.currency)}</span> ${currency}</p>
<p class="sku">SKU: ${p.sku}</p>${stock}`;
  }
}

export function itemPage(cat: Catalogue, p: Product): string {
  const related = p.related
    .map((k) => cat.products[k - 1])
    .filter((r): r is Product => r !== undefined)
    .map((r) => `<li><a class="related-link" href="/shop/item/${r.id}">${escapeHtml(r.name)}</a></li>`)
    .join('');
  const crumbs = breadcrumbs([[`/shop/category/${p.category}`, title(p.category)]], p.name);
  const body = `${crumbs}${p.look?.pageWrapper ? '<div class="page-container">' : ''}
<main class="product-page${p.deviation === 'alternate-layout' ? ' pdp-v2' : ''}">
<div class="gallery"><img src="/static/img/${p.id}.jpg" alt="${escapeHtml(p.name)}" width="600" height="600"></div>
<section class="product-info">
${p.look?.banner ? '<div class="promo-banner"><p>Spring sale: 10% off everything with code SPRING</p></div>\n' : ''}${p.look?.buyBoxWrapper ? `<div class="buybox-wrapper">${buyBox(p)}</div>` : buyBox(p)}
<form class="add-to-cart" action="/shop/cart" method="post"><input type="hidden" name="id" value="${p.id}"><label>Quantity <input name="qty" value="1" size="2"></label><button>Add to cart</button></form>
</section>
<section class="description"><h2>Description</h2>${p.description.map((d) => `<p>${escapeHtml(d)}</p>`).join('\n')}</section>
<section class="features"><h2>Features</h2><ul>${p.features.map((f) => `<li>${escapeHtml(f)}</li>`).join('')}</ul></section>
<section class="related"><h2>You may also like</h2><ul>${related}</ul></section>
${p.look ? extraBlocks(cat, p) : ''}</main>`;
  return page(
    { title: p.name, description: p.description[0] ?? '', extra: p.jsonLd === 'none' ? '' : jsonLd(p) },
    p.look?.pageWrapper ? `${body}</div>` : body,
  );
}

/** The variant shop's optional blocks, reviews and recommendation blocks (of any length, items unalike). */
function extraBlocks(cat: Catalogue, p: Product): string {
  const look = p.look;
  if (!look) return '';
  const out: string[] = [];
  if (look.video)
    out.push('<section class="video"><h2>Video</h2><video controls src="/static/v.mp4"></video></section>');
  if (look.sizeChart)
    out.push(
      '<section class="size-chart"><h2>Sizes</h2><table><tr><th>Size</th><th>Width</th></tr><tr><td>S</td><td>30 cm</td></tr><tr><td>L</td><td>40 cm</td></tr></table></section>',
    );
  const reviews = look.reviews.map(
    (r) =>
      `<li class="review"><div class="review-head"><span class="stars">${'★'.repeat(r.stars)}${'☆'.repeat(5 - r.stars)}</span> <b class="reviewer">${r.author}</b>${r.verified ? ' <span class="verified">Verified buyer</span>' : ''}</div>` +
      `<p class="review-text">${escapeHtml(r.text)}</p>${r.photo ? '<img class="review-photo" src="/static/r.jpg" alt="">' : ''}${r.reply ? '<div class="shop-reply"><p>Thank you for your review!</p></div>' : ''}</li>`,
  );
  out.push(
    `<section class="reviews"><h2>Reviews (${look.reviews.length})</h2>${reviews.length ? `<ol class="review-list">${reviews.join('')}</ol>` : '<p class="no-reviews">No reviews yet.</p>'}</section>`,
  );
  for (const block of look.recommendations) {
    const items = block.items.map((it) => {
      const r = cat.products[it.id - 1];
      const badge = it.badge ? ` <span class="badge">${it.badge}</span>` : '';
      return r
        ? `<li class="rec"><a class="rec-link" href="/shop/item/${r.id}">${escapeHtml(r.name)}</a>${badge}</li>`
        : '';
    });
    out.push(
      `<section class="recs"><h2>${block.title}</h2><ul class="rec-list">${items.join('')}</ul></section>`,
    );
  }
  return `${out.join('\n')}\n`;
}

export function listingPage(cat: Catalogue, n: number): string {
  const items = listingItems(cat, n);
  const first = (n - 1) * 20 + 1;
  const cards = items
    .map(
      (
        p,
      ) => `<li class="product-card"><a class="product-link" href="/shop/item/${p.id}"><img src="/static/img/${p.id}-s.jpg" alt=""><span class="card-name">${escapeHtml(p.name)}</span></a>
<span class="card-price">${money(p.price, p.currency)}</span> <span class="card-stock">${p.inStock ? 'In stock' : 'Out of stock'}</span></li>`,
    )
    .join('\n');
  const prev = n > 1 ? `<a class="prev" href="/shop/list/${n - 1}">Previous</a>` : '';
  const next = n < cat.listings ? `<a class="next" href="/shop/list/${n + 1}">Next</a>` : '';
  const body = `${breadcrumbs([], `All products, page ${n}`)}
<main class="listing"><h1>All products</h1>
<p class="result-count">Showing ${first}–${first + items.length - 1} of ${cat.items} products</p>
<div class="sort">Sort by: <a href="/shop/list/${n}?sort=price">Price</a> <a href="/shop/list/${n}?sort=new">Newest</a></div>
<ul class="products">
${cards}
</ul>
<nav class="pagination">${prev} <span>Page ${n} of ${cat.listings}</span> ${next}</nav>
</main>`;
  return page({ title: `All products, page ${n}`, description: `Our products, page ${n}.` }, body);
}
