import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { structureSketch } from '../../activities/reading/learned/structure.js';
import { learnableFields, numbersIn, urlShape } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { bestTemplate, SAME_TEMPLATE, similarity } from '../../shared/template-sketch.js';

interface Product {
  name: string;
  price: number;
  sku: string;
  in_stock: boolean;
  tags: string[];
}

/** One page of a shop's product template; `swap` puts the brand where the name was (same structure). */
function productPage(p: Product, opts: { paragraphs?: number; swap?: boolean; moved?: boolean } = {}) {
  const title = opts.swap ? 'Acme' : p.name;
  const brand = opts.swap ? p.name : 'Acme';
  const price = `<div class="price-box"><span class="price">$${p.price.toFixed(2)}</span></div>`;
  return `<html><head><title>${p.name} | Shop</title></head><body>
    <header class="site"><nav><a href="/">Home</a> <a href="/c">Catalogue</a></nav></header>
    <main class="product">
      <h1 class="title">${title}</h1><p class="brand">${brand}</p>
      ${opts.moved ? '' : price}
      <p class="sku">SKU: ${p.sku}</p>
      <p class="stock">${p.in_stock ? 'In stock' : 'Sold out'}</p>
      <ul class="tags">${p.tags.map((t) => `<li>${t}</li>`).join('')}</ul>
      ${'<p class="text">Words about it.</p>'.repeat(opts.paragraphs ?? 2)}
      ${opts.moved ? `<aside>${price}</aside>` : ''}
    </main>
    <footer>© Shop</footer></body></html>`;
}

const at = (html: string, url = 'https://shop.test/p/1') => ({ $: load(html), url });

const PRODUCTS: Product[] = [
  { name: 'Blue Kettle', price: 24.5, sku: 'BK-17', in_stock: true, tags: ['kitchen', 'blue'] },
  { name: 'Red Toaster', price: 1299, sku: 'RT-9', in_stock: true, tags: ['kitchen'] },
  { name: 'Green Mug', price: 7, sku: 'GM-301', in_stock: false, tags: ['mug', 'green', 'gift'] },
  { name: 'Steel Pan', price: 39.99, sku: 'SP-2', in_stock: false, tags: ['pan'] },
];
const FIELDS = learnableFields(
  normalizeSchema({ name: 'string', price: 'number', sku: 'string', in_stock: 'boolean', tags: 'string[]' })
    .fields,
);

function learn(pages: Product[]): FieldCandidates {
  let known: FieldCandidates | null = null;
  for (const p of pages) known = learnFromAnswer(at(productPage(p)), FIELDS ?? [], { ...p }, known);
  return known ?? {};
}

describe('learned extractors: reading pages', () => {
  test('pages of one template are alike whatever their text and list lengths; a moved block barely changes it', () => {
    const a = structureSketch(load(productPage(PRODUCTS[0] as Product, { paragraphs: 1 })));
    const b = structureSketch(load(productPage(PRODUCTS[2] as Product, { paragraphs: 5 })));
    assert.equal(similarity(a, b), 1);
    const moved = structureSketch(load(productPage(PRODUCTS[0] as Product, { moved: true })));
    assert.ok(similarity(a, moved) >= SAME_TEMPLATE, String(similarity(a, moved)));
  });

  test('URL shapes replace ids and slugs, keep literal parts and query keys', () => {
    assert.equal(urlShape('https://shop.test/item/123'), 'shop.test/item/:v');
    assert.equal(urlShape('https://shop.test/p/blue-kettle-large?ref=1'), 'shop.test/p/:v?ref');
    assert.notEqual(urlShape('https://shop.test/list/2'), urlShape('https://shop.test/item/2'));
  });

  test('numbers are read with thousands and decimal separators', () => {
    assert.deepEqual(numbersIn('$1,299.00 was 1.499,50 €'), [1299, 1499.5]);
    assert.deepEqual(numbersIn('19,99 €'), [19.99]);
  });

  test('selectors learned from the model answers of two pages read the next pages', () => {
    const known = learn(PRODUCTS.slice(0, 3));
    for (const name of ['name', 'price', 'sku', 'in_stock', 'tags'])
      assert.ok((known[name]?.length ?? 0) > 0, `no candidate for ${name}`);
    const next = PRODUCTS[3] as Product;
    const out = applyExtractor(at(productPage(next)), FIELDS ?? [], known);
    assert.deepEqual(out.unanswered, []);
    assert.deepEqual(out.data, { ...next });
    assert.match(out.selectors.sku ?? '', /sku/);
  });

  test('a lookup answers only the texts it was taught; other text leaves the field to the model', () => {
    const known = learn([PRODUCTS[0], PRODUCTS[1]] as Product[]);
    const out = applyExtractor(at(productPage(PRODUCTS[2] as Product)), FIELDS ?? [], known);
    assert.deepEqual(out.unanswered, ['in_stock']);
  });

  test('a moved block makes the candidates disagree, so the field is not answered', () => {
    const known = learn(PRODUCTS.slice(0, 3));
    const out = applyExtractor(at(productPage(PRODUCTS[3] as Product, { moved: true })), FIELDS ?? [], known);
    assert.ok(out.unanswered.includes('price'));
  });

  test('a page whose values swapped places under the same structure still reads, wrongly: checks catch it', () => {
    const known = learn(PRODUCTS.slice(0, 3));
    const swapped = applyExtractor(
      at(productPage(PRODUCTS[3] as Product, { swap: true })),
      FIELDS ?? [],
      known,
    );
    assert.equal(swapped.data.name, 'Acme');
    const after = learnFromAnswer(
      at(productPage(PRODUCTS[3] as Product, { swap: true })),
      FIELDS ?? [],
      { ...PRODUCTS[3] },
      known,
    );
    assert.deepEqual(after.name, []);
  });

  test('schemas with an object field, or lists inside list items, are not learnable', () => {
    assert.equal(learnableFields(normalizeSchema({ seller: { name: 'string' } }).fields), null);
    assert.equal(learnableFields(normalizeSchema({ items: [{ tags: 'string[]' }] }).fields), null);
  });

  test('a listing: item containers from the repeated block, properties read inside each, links made absolute', () => {
    const items = (page: number, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const k = page * 100 + i;
        return { title: `Lamp model ${k}`, price: 10 + k / 4, url: `https://shop.test/p/${k}` };
      });
    const listing = (page: number, list: ReturnType<typeof items>, extra = '') =>
      `<html><body><header><nav><a href="/">Home</a></nav></header><main><h1>Lamps, page ${page}</h1>${extra}
        <ul class="grid">${list
          .map(
            (it) =>
              `<li class="card"><a class="link" href="/p/${it.url.split('/').pop()}"><span class="name">${it.title}</span></a>` +
              `<div class="meta"><b>Price</b> <span class="amount">€${it.price.toFixed(2)}</span></div></li>`,
          )
          .join('')}</ul></main></body></html>`;
    const fields = learnableFields(
      normalizeSchema({ items: [{ title: 'string', price: 'number', url: 'string' }] }).fields,
    );
    assert.ok(fields);
    let known: FieldCandidates | null = null;
    for (const p of [1, 2]) {
      const list = items(p, 3 + p);
      known = learnFromAnswer(
        at(listing(p, list), `https://shop.test/list/${p}`),
        fields,
        { items: list },
        known,
      );
    }
    assert.ok((known?.items?.length ?? 0) > 0, JSON.stringify(known));
    const next = items(3, 7);
    const out = applyExtractor(at(listing(3, next), 'https://shop.test/list/3'), fields, known ?? {});
    assert.deepEqual(out.unanswered, []);
    assert.deepEqual(out.data, { items: next });
    // A card of another shape in the grid (an advert) makes the containers disagree with any answer.
    const advert = '<li class="card"><span class="name">Sponsored</span></li>';
    const odd = listing(3, next).replace('<ul class="grid">', `<ul class="grid">${advert}`);
    assert.deepEqual(applyExtractor(at(odd, 'https://shop.test/list/3'), fields, known ?? {}).unanswered, [
      'items',
    ]);
  });
});

/** A product page as real shops vary it within one template. */
interface Variant {
  subtitle?: string;
  banner?: boolean;
  wrapper?: boolean;
  reviews?: number;
  recommendations?: number;
  sale?: number;
}

function variantPage(p: Product, v: Variant = {}): string {
  const sub = v.subtitle ? ` <span class="subtitle">${v.subtitle}</span>` : '';
  const price = v.sale
    ? `<span class="price"><del>$${v.sale.toFixed(2)}</del> <ins>$${p.price.toFixed(2)}</ins></span>`
    : `<span class="price">$${p.price.toFixed(2)}</span>`;
  const box = `<h1 class="title">${p.name}${sub}</h1><p class="brand">Acme</p>
    <div class="price-box">${price}</div><p class="sku">SKU: ${p.sku}</p>`;
  const reviews = Array.from(
    { length: v.reviews ?? 0 },
    (_, i) =>
      `<li class="review"><b class="who">R${i}</b>${i % 2 ? '<span class="verified">Verified</span>' : ''}<p>Fine.</p>${i % 3 === 0 ? '<div class="reply"><p>Thanks</p></div>' : ''}</li>`,
  ).join('');
  const recs = Array.from(
    { length: v.recommendations ?? 0 },
    (_, i) =>
      `<section class="recs"><h2>Also ${i}</h2><ul><li><a href="/p/${i}">Item ${i}</a></li></ul></section>`,
  ).join('');
  return `<html><head><title>${p.name}</title></head><body>
    <header class="site"><nav><a href="/">Home</a> <a href="/c">Catalogue</a></nav></header>
    <main class="product">
      ${v.banner ? '<div class="promo"><p>Spring sale</p></div>' : ''}
      ${v.wrapper ? `<div class="buybox">${box}</div>` : box}
      <ul class="tags">${p.tags.map((t) => `<li>${t}</li>`).join('')}</ul>
      <section class="reviews"><h2>Reviews</h2><ol>${reviews}</ol></section>${recs}
    </main>
    <footer>© Shop</footer></body></html>`;
}

const listingPage = (n: number) => `<html><body>
  <header class="site"><nav><a href="/">Home</a> <a href="/c">Catalogue</a></nav></header>
  <main class="listing"><h1>All products</h1><div class="filters"><form><select><option>Price</option></select></form></div>
  <ul class="grid">${Array.from({ length: n }, (_, i) => `<li class="card"><a class="link" href="/p/${i}"><img src="/i/${i}.jpg"><span class="name">Lamp ${i}</span></a><span class="cost">$${i}.00</span></li>`).join('')}</ul>
  <nav class="pages"><a class="next" href="/list/2">Next</a></nav></main>
  <footer>© Shop</footer></body></html>`;

const sketch = (html: string) => structureSketch(load(html));
const ANSWERED = learnableFields(normalizeSchema({ name: 'string', price: 'number', sku: 'string' }).fields);

function learnVariants(pages: [Product, Variant][]): FieldCandidates {
  let known: FieldCandidates | null = null;
  for (const [p, v] of pages)
    known = learnFromAnswer(
      at(variantPage(p, v)),
      ANSWERED ?? [],
      { name: p.name, price: p.price, sku: p.sku },
      known,
    );
  return known ?? {};
}

describe('learned extractors: templates that vary', () => {
  test('variants of one template match its template; a page of another template matches none', () => {
    const [a, b, c, d] = PRODUCTS as [Product, Product, Product, Product];
    const known = [
      { key: 't1', status: 'verified' as const, sketches: [sketch(variantPage(a, { reviews: 2 }))] },
    ];
    const variants: [Product, Variant][] = [
      [b, { reviews: 9, recommendations: 2 }],
      [c, { banner: true, reviews: 0 }],
      [d, { wrapper: true, reviews: 5, recommendations: 1, subtitle: 'Gift set' }],
      [a, { banner: true, wrapper: true, reviews: 14, recommendations: 3 }],
    ];
    for (const [p, v] of variants) {
      const match = bestTemplate(sketch(variantPage(p, v)), known);
      assert.equal(match?.template.key, 't1', JSON.stringify(v));
    }
    assert.equal(bestTemplate(sketch(listingPage(12)), known), null);
    // Of two known templates, a page goes to the one it is like.
    const both = [...known, { key: 't2', status: 'learning' as const, sketches: [sketch(listingPage(3))] }];
    assert.equal(bestTemplate(sketch(listingPage(30)), both)?.template.key, 't2');
    assert.equal(bestTemplate(sketch(variantPage(c, { reviews: 7 })), both)?.template.key, 't1');
  });

  test('a subtitle inside the title heading: the title is read without it, never with it', () => {
    const [a, b, c, d] = PRODUCTS as [Product, Product, Product, Product];
    // Learned on pages without a subtitle.
    const known = learnVariants([
      [a, {}],
      [b, { reviews: 3 }],
      [c, { banner: true }],
    ]);
    const out = applyExtractor(at(variantPage(d, { subtitle: 'Limited edition' })), ANSWERED ?? [], known);
    assert.notEqual(out.data.name, `${d.name} Limited edition`);
    assert.ok(out.data.name === undefined || out.data.name === d.name, JSON.stringify(out.data));
    assert.equal(out.data.price, d.price);
    // Taught by the model on one such page, the own-text candidate answers the next ones.
    const taught = learnFromAnswer(
      at(variantPage(d, { subtitle: 'Limited edition' })),
      (ANSWERED ?? []).filter((f) => f.name === 'name'),
      { name: d.name },
      known,
    );
    const taughtKnown = { ...known, ...taught };
    const next = applyExtractor(at(variantPage(a, { subtitle: 'Gift set' })), ANSWERED ?? [], taughtKnown);
    assert.equal(next.data.name, a.name);
    // An extra wrapper breaks the place-based selectors: the title is left to the model, not read wrongly.
    const wrapped = applyExtractor(
      at(variantPage(b, { subtitle: 'Gift set', wrapper: true })),
      ANSWERED ?? [],
      taughtKnown,
    );
    assert.ok(wrapped.data.name === undefined || wrapped.data.name === b.name, JSON.stringify(wrapped.data));
  });

  test('a selector that also takes a neighbour (title and subtitle h2 in one block) is rejected; a more specific one stays', () => {
    const [a, b, c] = PRODUCTS as [Product, Product, Product];
    const page = (p: Product, subtitle?: string) =>
      `<html><body><div class="module"><h2>${p.name}</h2>${
        subtitle ? `<h2>${subtitle}</h2>` : ''
      }<p class="sku">SKU: ${p.sku}</p></div></body></html>`;
    const fields = learnableFields(normalizeSchema({ name: 'string', sku: 'string' }).fields) ?? [];
    let known: FieldCandidates | null = null;
    for (const [p, sub] of [
      [a, 'Second edition'],
      [b, undefined],
    ] as [Product, string | undefined][])
      known = learnFromAnswer(at(page(p, sub)), fields, { name: p.name, sku: p.sku }, known);
    const selectors = (known?.name ?? []).map((cand) => cand.selector);
    assert.ok(selectors.length > 0);
    assert.ok(!selectors.includes('div.module h2'), selectors.join(' | '));
    assert.ok(selectors.includes('div.module > h2:nth-of-type(1)'), selectors.join(' | '));
    const out = applyExtractor(at(page(c, 'Deluxe')), fields, known ?? {});
    assert.equal(out.data.name, c.name);
  });

  test('a struck-out price beside the price leaves the price to the model and the other fields answered', () => {
    const [a, b, c, d] = PRODUCTS as [Product, Product, Product, Product];
    const known = learnVariants([
      [a, {}],
      [b, { reviews: 4 }],
      [c, {}],
    ]);
    const out = applyExtractor(at(variantPage(d, { sale: 59.99 })), ANSWERED ?? [], known);
    assert.deepEqual(out.unanswered, ['price']);
    assert.deepEqual(out.data, { name: d.name, sku: d.sku });
  });

  test('a page of another layout under a like structure: its missing nodes are not answered as absent values', () => {
    const [a, b, c, d] = PRODUCTS as [Product, Product, Product, Product];
    const known = learnVariants([
      [a, {}],
      [b, {}],
      [c, {}],
    ]);
    const other = variantPage(d)
      .replace(/<h1 class="title">.*?<\/h1>/, `<h2 class="pdp-name">${d.name}</h2>`)
      .replace('<div class="price-box">', '<div class="pdp-price">')
      .replace('class="sku"', 'class="pdp-sku"');
    const out = applyExtractor(at(other), ANSWERED ?? [], known);
    assert.deepEqual(out.data, {});
    assert.deepEqual([...out.unanswered].sort(), ['name', 'price', 'sku']);
  });
});
