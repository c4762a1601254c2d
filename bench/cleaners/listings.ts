// Generated listing pages for the cleaner bench's recall goal: product grids, result lists and data tables
// inside the usual boilerplate (top bar, header with search, navigation, cookie banner, filter form,
// pagination, newsletter form, footer, scripts, styles, icons). The expected content is every item and every
// table row. Four markup styles, from semantic tags to classes only to bare divs, so no cleaner can count
// on one naming habit.
const ADJECTIVES = [
  'Compact',
  'Classic',
  'Rugged',
  'Slim',
  'Deluxe',
  'Everyday',
  'Quiet',
  'Bright',
  'Modular',
  'Foldable',
];
const MATERIALS = [
  'Oak',
  'Steel',
  'Linen',
  'Ceramic',
  'Bamboo',
  'Walnut',
  'Aluminium',
  'Wool',
  'Cotton',
  'Glass',
];
const NOUNS = [
  'Lamp',
  'Kettle',
  'Backpack',
  'Desk',
  'Chair',
  'Blanket',
  'Speaker',
  'Mug',
  'Shelf',
  'Jacket',
  'Clock',
  'Tray',
];
const PHRASES = [
  'hand finished in small batches',
  'ships flat and assembles in minutes',
  'tested for ten thousand cycles',
  'with a two year warranty',
  'made from recycled materials',
  'washable at forty degrees',
  'fits most standard sizes',
  'available in three colours',
];
const CATEGORIES = [
  'Living room',
  'Kitchen',
  'Bedroom',
  'Office',
  'Outdoor',
  'Lighting',
  'Storage',
  'Textiles',
  'Decor',
  'Gifts',
  'Sale',
  'New in',
];
const CITIES = ['Lisbon', 'Oslo', 'Austin', 'Osaka', 'Leeds', 'Porto', 'Denver', 'Ghent'];

type Style = 'semantic' | 'classes' | 'roles' | 'bare';
type Layout = 'grid' | 'list' | 'table';

/** A small deterministic generator, so every run scores the same pages. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: T[]) => items[Math.floor(next() * items.length)]!,
  };
}
type Random = ReturnType<typeof random>;

const ICON =
  '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M12 2l3 7h7l-5.5 4 2 7-6.5-4.5L5.5 20l2-7L2 9h7z"/></svg>';
const wrap = (style: Style, tag: string, role: string, cls: string, inner: string) =>
  style === 'semantic'
    ? `<${tag} class="${cls}">${inner}</${tag}>`
    : style === 'roles'
      ? `<div role="${role}" class="x${cls.length}">${inner}</div>`
      : style === 'classes'
        ? `<div class="${cls}" id="${cls}">${inner}</div>`
        : `<div class="c${cls.length}">${inner}</div>`;

function links(r: Random, count: number, prefix: string): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `<li><a href="/${prefix}/${i}" class="menu-link">${r.pick(CATEGORIES)} ${r.pick(NOUNS)}s</a></li>`,
  ).join('');
}

function boilerplateTop(r: Random, style: Style): string {
  const search =
    '<form action="/search" class="search"><label for="q">Search</label><input id="q" name="q" placeholder="Search products"><button type="submit">Go</button></form>';
  const account =
    '<ul class="account"><li><a href="/login">Sign in</a></li><li><a href="/basket">Basket (0)</a></li><li><a href="/help">Help</a></li></ul>';
  const nav = wrap(style, 'nav', 'navigation', 'main-nav', `<ul>${links(r, 30 + r.int(40), 'c')}</ul>`);
  const cookie =
    `<div id="${style === 'bare' ? 'cc' : 'cookie-banner'}" class="${style === 'bare' ? 'fixed' : 'cookie-consent'}"><p>We use cookies and similar technologies to improve your experience, measure traffic and show you relevant offers. By clicking Accept you agree to our use of cookies.</p>` +
    '<button>Accept all</button><button>Reject</button><a href="/privacy">Cookie settings</a></div>';
  const topbar = '<div class="topbar">Free delivery on orders over 50 pounds. Returns within 30 days.</div>';
  return `${cookie}${topbar}${wrap(style, 'header', 'banner', 'site-header', `<a href="/" class="logo"><img src="/logo.png" alt="Homestore">${ICON}</a>${search}${account}`)}${nav}`;
}

function boilerplateBottom(r: Random, style: Style): string {
  const columns = Array.from(
    { length: 4 },
    (_, i) =>
      `<div class="col"><h4>${['Shop', 'Company', 'Support', 'Legal'][i]}</h4><ul>${links(r, 6 + r.int(6), `f${i}`)}</ul></div>`,
  ).join('');
  const newsletter =
    '<form class="newsletter"><h4>Sign up for our newsletter</h4><p>Ten percent off your first order when you subscribe.</p><input type="email" name="email"><button>Subscribe</button></form>';
  const footer = wrap(
    style,
    'footer',
    'contentinfo',
    'site-footer',
    `${columns}${newsletter}<p>© 2026 Homestore Ltd. All rights reserved. Registered in England.</p>`,
  );
  const script = `<script>window.dataLayer=window.dataLayer||[];${'dataLayer.push({event:"view",items:[1,2,3]});'.repeat(40 + r.int(80))}</script>`;
  return `${footer}${script}<img src="/pixel.gif?u=1" width="1" height="1" alt="">`;
}

function sidebar(r: Random, style: Style): string {
  const options = Array.from(
    { length: 8 + r.int(10) },
    (_, i) => `<label><input type="checkbox" name="f${i}"> ${r.pick(MATERIALS)} (${1 + r.int(40)})</label>`,
  ).join('');
  return wrap(
    style,
    'aside',
    'complementary',
    'filters',
    `<form class="filter-form"><h3>Filter by</h3>${options}<button>Apply</button></form>`,
  );
}

interface Item {
  html: string;
  text: string;
}

function product(r: Random, i: number, layout: Layout): Item {
  const title = `${r.pick(ADJECTIVES)} ${r.pick(MATERIALS)} ${r.pick(NOUNS)} ${i + 1}`;
  const price = `£${5 + r.int(300)}.${r.int(90) + 10}`;
  const reviews = `${r.int(500)} reviews`;
  const blurb = r.int(2) ? `${r.pick(PHRASES)}, ${r.pick(PHRASES)}` : '';
  const slug = title.toLowerCase().replaceAll(' ', '-');
  const tag = layout === 'list' ? 'li' : 'div';
  const html =
    `<${tag} class="product-card" data-sku="SKU${1000 + i}" data-analytics='{"list":"grid","pos":${i}}'>` +
    `<a href="/p/${slug}" class="product-card__image"><img src="/img/${slug}.jpg" srcset="/img/${slug}-2x.jpg 2x" alt="${title}" loading="lazy"></a>` +
    `<h3 class="product-card__title"><a href="/p/${slug}">${title}</a></h3>` +
    `<div class="price"><span class="price__now">${price}</span></div>` +
    `<div class="rating" aria-label="rated ${1 + r.int(5)} of 5">${ICON}${ICON}${ICON} <span>${reviews}</span></div>` +
    (blurb ? `<p class="product-card__blurb">${blurb}</p>` : '') +
    `<button class="btn btn--primary add-to-basket" data-sku="SKU${1000 + i}">Add to basket</button></${tag}>`;
  return { html, text: `${title} ${price} ${reviews} ${blurb}` };
}

function table(r: Random, rows: number): Item {
  const head =
    '<tr><th>Branch</th><th>City</th><th>Opening hours</th><th>Phone</th><th>Stock items</th></tr>';
  const body = Array.from({ length: rows }, (_, i) => {
    const cells = [
      `Branch ${i + 1} ${r.pick(MATERIALS)} Street`,
      r.pick(CITIES),
      `${7 + r.int(3)}:00 to ${17 + r.int(5)}:30`,
      `0${100 + r.int(900)} ${100000 + r.int(900000)}`,
      String(r.int(9000)),
    ];
    return {
      html: `<tr class="row">${cells.map((c) => `<td class="cell">${c}</td>`).join('')}</tr>`,
      text: cells.join(' '),
    };
  });
  return {
    html: `<table class="stores"><thead>${head}</thead><tbody>${body.map((b) => b.html).join('')}</tbody></table>`,
    text: `Branch City Opening hours Phone Stock items ${body.map((b) => b.text).join(' ')}`,
  };
}

function page(seed: number, style: Style, layout: Layout): { name: string; html: string; expected: string } {
  const r = random(seed);
  const heading = `${r.pick(CATEGORIES)} ${layout === 'table' ? 'stores' : 'products'}`;
  let content: Item;
  if (layout === 'table') content = table(r, 15 + r.int(120));
  else {
    const items = Array.from({ length: 8 + r.int(52) }, (_, i) => product(r, i, layout));
    const inner = items.map((item) => item.html).join('');
    content = {
      html: layout === 'list' ? `<ul class="results">${inner}</ul>` : `<div class="grid">${inner}</div>`,
      text: items.map((item) => item.text).join(' '),
    };
  }
  const crumbs = `<ol class="breadcrumb"><li><a href="/">Home</a></li><li><a href="/c">${heading}</a></li></ol>`;
  const sort =
    '<form class="sort"><label>Sort by <select name="s"><option>Relevance</option><option>Price low to high</option><option>Newest</option></select></label></form>';
  const pager = `<div class="pagination"><a href="?p=1">1</a><a href="?p=2">2</a><a href="?p=3">3</a><a href="?p=2" rel="next">Next</a></div>`;
  const main = wrap(
    style,
    'main',
    'main',
    'content',
    `${crumbs}<h1>${heading}</h1>${sort}${content.html}${pager}`,
  );
  const head = `<head><title>${heading} | Homestore</title><style>${'.product-card{display:flex;margin:0 auto}'.repeat(60)}</style><script type="application/ld+json">{"@type":"ItemList"}</script></head>`;
  const html = `<!doctype html><html>${head}<body>${boilerplateTop(r, style)}<div class="page">${sidebar(r, style)}${main}</div>${boilerplateBottom(r, style)}</body></html>`;
  return { name: `${style}-${layout}-${seed}`, html, expected: `${heading} ${content.text}` };
}

export function generateListings(): { name: string; html: string; expected: string }[] {
  const styles: Style[] = ['semantic', 'classes', 'roles', 'bare'];
  const layouts: Layout[] = ['grid', 'list', 'table'];
  return styles.flatMap((style, s) =>
    layouts.flatMap((layout, l) => [1, 2, 3].map((k) => page(100 * s + 10 * l + k, style, layout))),
  );
}
