import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/learned/dom.js';
import { applyExtractor } from '../../activities/learned/read.js';
import { structureSketch } from '../../activities/learned/structure.js';
import { learnableFields, numbersIn, urlShape } from '../../activities/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { SAME_TEMPLATE, similarity } from '../../shared/template-sketch.js';

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
