// Product pages answered without a model: prices in any spelling, offers that disagree, list prices,
// availability labels, identifiers read only from their own property. Each wrong answer seen on real shops
// has a case here asserting that the field goes to the model instead.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { numberOf } from '../../activities/reading/structured-data/numbers.js';
import { answer, ld, page, productPage } from '../support/structured-pages.js';

const offer = (extra: Record<string, unknown>) => ({ '@type': 'Offer', priceCurrency: 'EUR', ...extra });

describe('prices', () => {
  const kettle = productPage({ name: 'Blue Kettle', offers: offer({ price: '88.00' }) });

  test('a string field gets the price as the page spells it, currency included', () => {
    const cases: [string, string][] = [
      ['Blue Kettle 88,00 €', '88,00 €'],
      ['Blue Kettle €88', '€88'],
      ['Blue Kettle EUR 88.00', 'EUR 88.00'],
      ['Preis: 88.- CHF', '88.- CHF'],
      ['4.9 stars (88 reviews) Price: $88.00', '$88.00'],
      ['Blue Kettle. Price 88', '88'],
    ];
    for (const [text, shown] of cases)
      assert.deepEqual(answer({ price: 'string' }, kettle, text).data, { price: shown }, text);
    assert.deepEqual(answer({ price: 'number' }, kettle, 'Blue Kettle 88,00 €').data, { price: 88 });
  });

  test('thousands in European, English, spaced and Swiss spellings', () => {
    const dear = productPage({ name: 'Oven', offers: offer({ price: 1234.56 }) });
    for (const text of ['1.234,56 €', '$1,234.56', '1 234,56 €', "CHF 1'234.56"]) {
      assert.deepEqual(answer({ price: 'string' }, dear, text).data, { price: text }, text);
      assert.deepEqual(answer({ price: 'number' }, dear, text).data, { price: 1234.56 }, text);
    }
  });

  test('a price the page strikes through or marks as old is a list price: the model decides', () => {
    const listed = productPage(
      { name: 'Drill', offers: offer({ price: 120 }) },
      '<p class="price"><del>120,00 €</del> <ins>99,00 €</ins></p>',
    );
    assert.deepEqual(answer({ price: 'string' }, listed, 'Drill ~~120,00 €~~ 99,00 €').answered, []);
    const old = productPage(
      { name: 'Drill', offers: offer({ price: 120 }) },
      '<span class="old-price">Was £120.00</span> <span class="special-price">£99.00</span>',
    );
    assert.deepEqual(answer({ price: 'number' }, old, 'Drill Was £120.00 £99.00').answered, []);
    const sale = productPage(
      { name: 'Drill', offers: offer({ price: 99 }) },
      '<p class="price"><del>120,00 €</del> <ins>99,00 €</ins></p>',
    );
    assert.deepEqual(answer({ price: 'string' }, sale, 'Drill ~~120,00 €~~ 99,00 €').data, {
      price: '99,00 €',
    });
  });

  test('a price the page does not show goes to the model', () => {
    assert.deepEqual(answer({ price: 'string' }, kettle, 'Blue Kettle 79,00 €').answered, []);
  });

  test('a price of 0 goes to the model, even where the page shows a 0', () => {
    const free = productPage({ name: 'Kettle', offers: offer({ price: '0.00' }) });
    assert.deepEqual(answer({ price: 'number' }, free, 'Kettle 0,00 € 5 reviews').answered, []);
  });

  test('offers at different prices (variants) go to the model; agreeing offers answer', () => {
    const sizes = productPage({
      name: 'T-shirt',
      offers: [offer({ price: '19.90', sku: 'TS-S' }), offer({ price: '24.90', sku: 'TS-XL' })],
    });
    const m = answer({ price: 'number', sku: 'string' }, sizes, 'T-shirt 19,90 € 24,90 € TS-S TS-XL');
    assert.deepEqual(m.answered, []);
    const same = productPage({ name: 'Mug', offers: [offer({ price: 9 }), offer({ price: '9.00' })] });
    assert.deepEqual(answer({ price: 'number' }, same, 'Mug 9,00 €').data, { price: 9 });
  });

  test('list prices: never the price, and an offer price equal to one is not trusted', () => {
    const sale = productPage({
      name: 'Drill',
      offers: offer({
        priceSpecification: [
          {
            '@type': 'UnitPriceSpecification',
            priceType: 'https://schema.org/StrikethroughPrice',
            price: 120,
          },
          { '@type': 'UnitPriceSpecification', price: 99 },
        ],
      }),
    });
    assert.deepEqual(answer({ price: 'number' }, sale, 'Drill was 120,00 € now 99,00 €').data, { price: 99 });
    const listed = productPage({
      name: 'Drill',
      offers: offer({ price: 120, priceSpecification: { priceType: 'ListPrice', price: 120 } }),
    });
    assert.deepEqual(answer({ price: 'number' }, listed, 'Drill 120,00 € 99,00 €').answered, []);
    const both = productPage({
      name: 'Drill',
      offers: offer({ price: 120, priceSpecification: { '@type': 'UnitPriceSpecification', price: 99 } }),
    });
    assert.deepEqual(answer({ price: 'number' }, both, 'Drill 120,00 € 99,00 €').answered, []);
  });

  test("an AggregateOffer's lowPrice only when its highPrice is absent or the same", () => {
    const range = (low: number, high?: number) =>
      productPage({ name: 'Tyre', offers: { '@type': 'AggregateOffer', lowPrice: low, highPrice: high } });
    assert.deepEqual(answer({ price: 'number' }, range(60, 80), 'Tyre from 60 € to 80 €').answered, []);
    assert.deepEqual(answer({ price: 'number' }, range(60, 60), 'Tyre 60 €').data, { price: 60 });
    assert.deepEqual(answer({ price: 'number' }, range(60), 'Tyre 60 €').data, { price: 60 });
  });

  test('microdata with an old and a new price is ambiguous', () => {
    const html = page(
      '',
      '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Lamp</h1>' +
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">' +
        '<s itemprop="price" content="40.00">40,00 €</s> <b itemprop="price" content="32.00">32,00 €</b></div></div>',
    );
    const m = answer({ name: 'string', price: 'number' }, html, 'Lamp 40,00 € 32,00 €');
    assert.deepEqual(m.data, { name: 'Lamp' });
  });

  test('currency by code or symbol; offers in different currencies are ambiguous', () => {
    assert.deepEqual(
      answer({ currency: 'string' }, productPage({ offers: offer({ price: 5 }) }), 'Cup 5 €').data,
      {
        currency: 'EUR',
      },
    );
    const two = productPage({ offers: [offer({ price: 5 }), offer({ price: 5, priceCurrency: 'CHF' })] });
    assert.deepEqual(answer({ currency: 'string' }, two, 'Cup 5 € CHF 5').answered, []);
  });

  test('numbers as written', () => {
    assert.equal(numberOf('$1,299.00'), 1299);
    assert.equal(numberOf('19,99 €'), 19.99);
    assert.equal(numberOf('1.299,00'), 1299);
    assert.equal(numberOf('USD 5'), 5);
    assert.equal(numberOf('2 for 10'), undefined);
    assert.equal(numberOf('BK-17'), undefined);
    assert.equal(numberOf('PT20M'), undefined);
  });
});

describe('availability', () => {
  const stocked = (availability: string, body = '') =>
    productPage({ name: 'Kettle', offers: offer({ price: 20, availability }) }, body);

  test('a string field gets the label, confirmed by the page in several languages', () => {
    const cases: [string, string, string][] = [
      ['https://schema.org/InStock', 'Kettle 20 € In stock', 'In stock'],
      ['http://schema.org/InStock', 'Kettle 20 € Auf Lager, Lieferzeit 2 Tage', 'In stock'],
      ['InStock', 'Kettle 20 € En stock', 'In stock'],
      ['https://schema.org/OutOfStock', 'Kettle 20 € Sold out', 'Out of stock'],
      ['http://schema.org/OutOfStock', 'Kettle 20 € Ausverkauft', 'Out of stock'],
      ['schema:PreOrder', 'Kettle 20 € Pre-order now', 'Pre-order'],
      ['https://schema.org/Discontinued', 'Kettle: no longer available', 'Discontinued'],
    ];
    for (const [stated, text, label] of cases)
      assert.deepEqual(answer({ availability: 'string' }, stocked(stated), text).data, {
        availability: label,
      });
  });

  test('the add-to-cart button counts, though cleaning drops forms', () => {
    const html = stocked(
      'https://schema.org/InStock',
      '<form action="/cart"><button type="submit" name="add">Add to cart</button></form>',
    );
    assert.deepEqual(answer({ availability: 'string' }, html, 'Kettle 20 €').data, {
      availability: 'In stock',
    });
  });

  test('no label, or labels of both kinds, go to the model', () => {
    const inStock = stocked('https://schema.org/InStock');
    assert.deepEqual(answer({ availability: 'string' }, inStock, 'Kettle 20 €').answered, []);
    assert.deepEqual(answer({ availability: 'string' }, inStock, 'Kettle In stock. Sold out').answered, []);
    // "Back in stock" is an out-of-stock page's label, not an in-stock one.
    const text = 'Kettle. Email me when back in stock';
    assert.deepEqual(answer({ availability: 'string' }, inStock, text).answered, []);
    assert.deepEqual(answer({ availability: 'string' }, stocked('OutOfStock'), text).data, {
      availability: 'Out of stock',
    });
  });

  test("the buy button speaks before the page's badges; a disabled add-to-cart button says nothing", () => {
    const badge = '<span class="badge price__badge-sold-out">Sold out</span>';
    const button = (attrs: string, label: string) =>
      stocked(
        'https://schema.org/InStock',
        `${badge}<form action="/cart/add"><button type="submit" name="add" ${attrs}>${label}</button></form>`,
      );
    const text = 'Kettle 20 € Sold out';
    assert.deepEqual(answer({ availability: 'string' }, button('', 'Add to cart'), text).data, {
      availability: 'In stock',
    });
    assert.deepEqual(
      answer({ availability: 'string' }, button('disabled', 'Add to cart'), text).answered,
      [],
    );
    assert.deepEqual(answer({ availability: 'string' }, button('disabled', 'Sold out'), text).answered, []);
    const soldOut = stocked(
      'OutOfStock',
      '<form action="/cart/add"><button disabled>Sold out</button></form>',
    );
    assert.deepEqual(answer({ availability: 'string' }, soldOut, 'Kettle 20 €').data, {
      availability: 'Out of stock',
    });
  });

  test("a brand that is the shop's own name goes to the model", () => {
    const html = page(
      '<meta property="og:site_name" content="Hearth &amp; Loom">' +
        ld({ '@type': 'Product', name: 'Apron', brand: { '@type': 'Brand', name: 'Hearth & Loom' } }),
      '',
    );
    assert.deepEqual(answer({ brand: 'string' }, html, 'Hearth & Loom\n# Apron').answered, []);
  });

  test('offers that disagree (one size sold out) go to the model', () => {
    const html = productPage({
      name: 'Boots',
      offers: [
        offer({ price: 80, availability: 'https://schema.org/OutOfStock' }),
        offer({ price: 80, availability: 'https://schema.org/InStock' }),
      ],
    });
    const m = answer({ price: 'number', availability: 'string' }, html, 'Boots 80 € In stock');
    assert.deepEqual(m.data, { price: 80 });
  });

  test('a boolean field: true or false where the page agrees; a pre-order is neither', () => {
    assert.deepEqual(answer({ in_stock: 'boolean' }, stocked('InStock'), 'Add to basket').data, {
      in_stock: true,
    });
    assert.deepEqual(answer({ in_stock: 'boolean' }, stocked('OutOfStock'), 'Sold out').data, {
      in_stock: false,
    });
    assert.deepEqual(answer({ in_stock: 'boolean' }, stocked('PreOrder'), 'Pre-order').answered, []);
  });
});

describe('identifiers', () => {
  test('a sku only from sku or offers.sku, never from mpn or productID', () => {
    const wounds = productPage({ name: 'Fake Wounds', mpn: 'FW-200', productID: 'Fake Wounds' });
    assert.deepEqual(answer({ sku: 'string' }, wounds, 'Fake Wounds FW-200').answered, []);
    const offered = productPage({ name: 'Cup', offers: offer({ price: 5, sku: 'CUP-1' }) });
    assert.deepEqual(answer({ sku: 'string' }, offered, 'Cup SKU: CUP-1').data, { sku: 'CUP-1' });
    assert.deepEqual(answer({ mpn: 'string' }, wounds, 'Fake Wounds FW-200').data, { mpn: 'FW-200' });
  });

  test('an identifier must be shown whole: BK-17 is not in BK-170', () => {
    const html = productPage({ name: 'Kettle', sku: 'BK-17' });
    assert.deepEqual(answer({ sku: 'string' }, html, 'Kettle, item BK-170').answered, []);
  });

  test('gtin13, gtin8 and friends answer fields named that way', () => {
    const html = productPage({ name: 'Soap', gtin13: '4006381333931', gtin8: '96385074' });
    const text = 'Soap EAN 4006381333931, 96385074';
    assert.deepEqual(answer({ gtin13: 'string', ean: 'string', gtin8: 'string' }, html, text).data, {
      gtin13: '4006381333931',
      ean: '4006381333931',
      gtin8: '96385074',
    });
    assert.deepEqual(answer({ upc: 'string' }, html, text).answered, []);
    const generic = productPage({ name: 'Soap', gtin: '4006381333931' });
    assert.deepEqual(answer({ ean: 'string', gtin8: 'string' }, generic, text).data, {
      ean: '4006381333931',
    });
  });
});

describe("the page's subject", () => {
  test('related products in the JSON-LD: fields they disagree on go to the model', () => {
    const html = page(
      ld([
        { '@type': 'Product', name: 'Blue Kettle', brand: { name: 'Acme' }, offers: offer({ price: 20 }) },
        { '@type': 'Product', name: 'Red Kettle', brand: 'Kettleco', offers: offer({ price: 20 }) },
      ]),
      '',
    );
    const m = answer(
      { name: 'string', brand: 'string', price: 'number' },
      html,
      'Blue Kettle Acme 20 € Red Kettle',
    );
    assert.deepEqual(m.data, { price: 20 });
  });

  test("the site's own entities are never the subject: no title from the shop's name", () => {
    const html = page(
      ld([
        { '@type': 'WebSite', name: 'Acme Shop' },
        { '@type': 'Organization', name: 'Acme Shop', logo: 'https://shop.test/logo.png' },
      ]),
      '',
    );
    assert.deepEqual(answer({ title: 'string' }, html, 'Acme Shop\n\n# Blue Kettle').answered, []);
  });

  test('a value that is not on the page is not taken from a lesser source either', () => {
    const html = page(
      '<meta property="product:price:amount" content="24.50">',
      ld({ '@type': 'Product', name: 'Kettle', offers: offer({ price: 19.99 }) }),
    );
    assert.deepEqual(answer({ price: 'number' }, html, 'Kettle 24,50 €').answered, []);
  });
});
