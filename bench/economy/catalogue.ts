// The generated shop's catalogue and its ground truth: which pages exist, what each item is, which item
// pages carry JSON-LD and which deviate from the template. Deterministic: the same --pages gives the same shop.
import { type Look, lookOf } from './variants.js';

/** The fields the bench asks for; the truth of every page has exactly these. */
export const FIELDS = ['name', 'price', 'currency', 'sku', 'in_stock', 'brand'] as const;
export type FieldName = (typeof FIELDS)[number];
export type Truth = Record<FieldName, string | number | boolean | null>;

export const PER_LISTING = 20;

/** How an item page departs from the template (null: it conforms). */
export type Deviation = 'alternate-layout' | 'sale' | 'missing-fields';
/** JSON-LD on an item page: every field, some fields (no brand, no sku), or none. */
export type JsonLd = 'full' | 'partial' | 'none';

export interface Product {
  id: number;
  name: string;
  brand: string;
  category: string;
  price: number;
  /** The price before the sale (sale pages only). */
  oldPrice: number | null;
  currency: 'USD' | 'EUR' | 'GBP';
  sku: string;
  inStock: boolean;
  availability: string;
  description: string[];
  features: string[];
  related: number[];
  deviation: Deviation | null;
  jsonLd: JsonLd;
  /** The variant shop's page-to-page differences (null: the plain shop, every page alike). */
  look: Look | null;
}

export type PageKind = 'listing' | 'item' | 'deviating';

export interface PageTruth {
  kind: PageKind;
  truth: Truth;
  deviation: Deviation | null;
  jsonLd: JsonLd;
}

export interface Catalogue {
  listings: number;
  items: number;
  products: Product[];
  /** Ground truth by path (/shop/list/N, /shop/item/K). */
  pages: Map<string, PageTruth>;
}

/**
 * The truth of a listing page. The schema asks for one product; a listing is no product's page, so a correct
 * model answers every field null there (the request's schema description says so too).
 */
export const LISTING_TRUTH: Truth = {
  name: null,
  price: null,
  currency: null,
  sku: null,
  in_stock: null,
  brand: null,
};

const DEVIATIONS: Deviation[] = ['alternate-layout', 'sale', 'missing-fields'];
const BRANDS = ['Nordwind', 'Acme', 'Halvorsen', 'Brightwell', 'Kestrel', 'Oakhurst', 'Lumen & Co', 'Vireo'];
const KINDS = [
  ['Kettle', 'kitchen'],
  ['Backpack', 'outdoor'],
  ['Desk Lamp', 'home'],
  ['Headphones', 'audio'],
  ['Chef Knife', 'kitchen'],
  ['Rain Jacket', 'outdoor'],
  ['Bluetooth Speaker', 'audio'],
  ['Throw Blanket', 'home'],
] as const;
const ADJECTIVES = ['Compact', 'Classic', 'Pro', 'Ultralight', 'Deluxe', 'Everyday', 'Studio', 'Heritage'];
const IN_STOCK = ['In stock', 'In stock — ships in 1-2 business days', 'Only 3 left in stock'];
const OUT_OF_STOCK = ['Out of stock', 'Currently unavailable', 'Sold out — back soon'];
const SENTENCES = [
  'Designed in our studio and tested for everyday use, it is built to last for years.',
  'The materials are sourced from certified suppliers and checked at every step of production.',
  'A thoughtful detail: every seam and joint is finished by hand before it leaves the workshop.',
  'Customers love how light it feels while still being sturdy enough for daily wear and tear.',
  'Care is simple: wipe clean with a damp cloth and let it dry at room temperature.',
  'It comes with a two-year warranty and free returns within thirty days of delivery.',
  'Pair it with other pieces from the same collection for a consistent look at home or outdoors.',
];
const FEATURES = [
  'Two-year warranty',
  'Recycled packaging',
  'Free shipping over 50',
  'Tested to EN 71 standards',
  'Replacement parts available',
  'Dishwasher-safe parts',
  'Water-resistant finish',
  'Carbon-neutral delivery',
];

/** mulberry32: a small seeded generator, so each item's facts depend only on its number. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cents2 = (n: number) => Math.round(n * 100) / 100;
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

/** Item k deviates when k % 50 === 25: 2% of the items, spread over the crawl, kinds in turn. */
export const deviationOf = (k: number): Deviation | null =>
  k % 50 === 25 ? (DEVIATIONS[Math.floor(k / 50) % DEVIATIONS.length] as Deviation) : null;

function product(k: number, items: number, variants: boolean): Product {
  const r = random(k * 2654435761);
  const [kind, category] = pick(r, KINDS);
  const brand = pick(r, BRANDS);
  const deviation = deviationOf(k);
  const price = cents2(Math.floor(5 + r() * 400) + pick(r, [0.99, 0.49, 0.0, 0.95]));
  const inStock = r() < 0.85;
  const letters = String.fromCharCode(65 + Math.floor(r() * 26), 65 + Math.floor(r() * 26));
  const c = r();
  // 40% of the conforming items carry JSON-LD (a quarter of those without brand and sku); deviating ones none.
  const ld = r();
  return {
    id: k,
    name: `${brand} ${pick(r, ADJECTIVES)} ${kind} ${letters}${100 + (k % 900)}`,
    brand,
    category,
    price,
    oldPrice: deviation === 'sale' ? cents2(Math.round(price * 1.25) + 0.99) : null,
    currency: c < 0.8 ? 'USD' : c < 0.92 ? 'EUR' : 'GBP',
    sku: `${letters}-${String(1000 + Math.floor(r() * 9000))}`,
    inStock,
    availability: pick(r, inStock ? IN_STOCK : OUT_OF_STOCK),
    description: Array.from({ length: 2 + Math.floor(r() * 2) }, () =>
      Array.from({ length: 3 }, () => pick(r, SENTENCES)).join(' '),
    ),
    features: Array.from(new Set(Array.from({ length: 5 }, () => pick(r, FEATURES)))),
    related: Array.from({ length: 4 }, () => 1 + Math.floor(r() * items)),
    deviation,
    jsonLd: deviation ? 'none' : ld < 0.3 ? 'full' : ld < 0.4 ? 'partial' : 'none',
    look: variants ? lookOf(k, items) : null,
  };
}

function truthOf(p: Product): Truth {
  const missing = p.deviation === 'missing-fields';
  return {
    name: p.name,
    price: p.price,
    currency: p.currency,
    sku: missing ? null : p.sku,
    in_stock: p.inStock,
    brand: missing ? null : p.brand,
  };
}

/**
 * A shop of `pages` pages in all: L listings of 20 items each (the last may hold fewer) and the items;
 * `variants`: item pages of the template differ as real ones do (variants.ts).
 */
export function buildCatalogue(pages: number, variants = false): Catalogue {
  const listings = Math.max(1, Math.ceil(pages / (PER_LISTING + 1)));
  const items = Math.max(0, pages - listings);
  const products = Array.from({ length: items }, (_, i) => product(i + 1, items, variants));
  const map = new Map<string, PageTruth>();
  for (let n = 1; n <= listings; n++)
    map.set(`/shop/list/${n}`, { kind: 'listing', truth: LISTING_TRUTH, deviation: null, jsonLd: 'none' });
  for (const p of products)
    map.set(`/shop/item/${p.id}`, {
      kind: p.deviation ? 'deviating' : 'item',
      truth: truthOf(p),
      deviation: p.deviation,
      jsonLd: p.jsonLd,
    });
  return { listings, items, products, pages: map };
}

/** The items listing n shows. */
export function listingItems(cat: Catalogue, n: number): Product[] {
  return cat.products.slice((n - 1) * PER_LISTING, n * PER_LISTING);
}
