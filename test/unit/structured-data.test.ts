import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mergeAnswer, planFromStructuredData } from '../../activities/reading/structured-data/answer.js';
import { mapFields } from '../../activities/reading/structured-data/map-fields.js';
import { STRUCTURED_LIMITS } from '../../activities/reading/structured-data/read.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { fields, ld, page, read } from '../support/structured-pages.js';

const PRODUCT = {
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Blue Kettle',
  sku: 'BK-17',
  brand: { '@type': 'Brand', name: 'Acme' },
  image: ['https://shop.test/k.jpg'],
  offers: {
    '@type': 'Offer',
    price: '24.50',
    priceCurrency: 'USD',
    availability: 'https://schema.org/InStock',
  },
};
const PRODUCT_TEXT =
  '# Blue Kettle\n\nSKU BK-17 · Acme\n\nPrice: $24.50 · In stock\n\n![kettle](https://shop.test/k.jpg)';

describe('readStructuredData', () => {
  test('JSON-LD documents, arrays and @graph, with schema.org prefixes taken off', () => {
    const items = read(
      page(
        ld({ '@graph': [{ '@type': 'WebSite', name: 'Shop' }, PRODUCT] }) +
          ld([{ '@type': 'schema:Article', 'schema:headline': 'News' }]) +
          '<script type="application/ld+json">{broken</script>',
        '',
      ),
    );
    assert.deepEqual(
      items.map((i) => [i.source, i.types]),
      [
        ['json-ld', ['WebSite']],
        ['json-ld', ['Product']],
        ['json-ld', ['Article']],
      ],
    );
    assert.equal(items[2]?.props.headline, 'News');
  });

  test('RDFa Lite: typeof items, prefixed and IRI property names, nested items, resource values', () => {
    const items = read(
      page(
        '<meta property="og:title" content="Kettle page">',
        '<div vocab="https://schema.org/" typeof="Product"><h1 property="name">Blue Kettle</h1>' +
          '<span property="schema:sku">BK-17</span><link property="https://schema.org/url" href="https://shop.test/k">' +
          '<div property="offers" typeof="Offer"><span property="price" content="24.50">$24.50</span>' +
          '<span property="priceCurrency">USD</span></div></div>',
      ),
    );
    const rdfa = items.find((i) => i.source === 'rdfa');
    assert.deepEqual(rdfa?.types, ['Product']);
    assert.deepEqual(rdfa?.props, {
      '@type': ['Product'],
      name: 'Blue Kettle',
      sku: 'BK-17',
      url: 'https://shop.test/k',
      offers: { '@type': ['Offer'], price: '24.50', priceCurrency: 'USD' },
    });
    const mapped = mapFields(
      fields({ name: 'string', price: 'number', sku: 'string' }),
      items,
      'Blue Kettle BK-17 $24.50',
    );
    assert.deepEqual(mapped.data, { name: 'Blue Kettle', price: 24.5, sku: 'BK-17' });
    assert.equal(mapped.paths.price, 'rdfa Product offers.price');
  });

  test('microdata with nested items, and OpenGraph/meta tags', () => {
    const items = read(
      page(
        '<meta property="og:title" content="Red Lamp"><meta property="product:price:amount" content="12">' +
          '<meta name="description" content="A lamp">',
        '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Red Lamp</h1>' +
          '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">' +
          '<meta itemprop="priceCurrency" content="EUR"><span itemprop="price">12,00</span></div>' +
          '<a itemprop="url" href="/lamp">x</a></div>',
      ),
    );
    const micro = items.find((i) => i.source === 'microdata');
    assert.deepEqual(micro, {
      source: 'microdata',
      types: ['Product'],
      props: {
        '@type': ['Product'],
        name: 'Red Lamp',
        offers: { '@type': ['Offer'], priceCurrency: 'EUR', price: '12,00' },
        url: '/lamp',
      },
    });
    const meta = items.find((i) => i.source === 'meta');
    assert.deepEqual(meta?.props, { name: 'Red Lamp', description: 'A lamp', offers: { price: '12' } });
  });

  test('bounded: JSON-LD past the text budget and over-long values are not read', () => {
    const big = 'x'.repeat(STRUCTURED_LIMITS.valueChars + 1);
    const items = read(
      page(
        ld({ '@type': 'Thing', name: 'ok', description: big }) +
          ld({ '@type': 'Thing', text: 'y'.repeat(1_000_001) }),
        '',
      ),
    );
    assert.equal(items.length, 1);
    assert.deepEqual(items[0]?.props, { '@type': 'Thing', name: 'ok' });
  });
});

describe('button and stock labels', () => {
  test('short texts of buttons, submit inputs and stock badges; long sections are not labels', () => {
    const items = read(
      page(
        '',
        '<p class="stock in-stock">In stock</p><form><input type="submit" value="Add to basket">' +
          '<button name="add"><span>Add to cart</span></button></form>' +
          `<div class="stock-info">${'Delivery terms. '.repeat(20)}</div>`,
      ),
    );
    assert.deepEqual(items, [
      {
        source: 'page',
        types: [],
        props: {
          labels: ['In stock', 'Add to basket', 'Add to cart'],
          buy: [{ text: 'Add to cart', disabled: false }],
        },
      },
    ]);
  });
});

describe('readStructuredData on hostile pages', () => {
  test('deep and wide microdata stay within the item and property bounds', () => {
    const deep = read(
      `${'<div itemscope>'.repeat(5_000)}<span itemprop="name">x</span>${'</div>'.repeat(5_000)}`,
    );
    assert.equal(deep.length, STRUCTURED_LIMITS.items);
    const wide = read(
      `<div itemscope>${'<span itemprop="name">x</span>'.repeat(STRUCTURED_LIMITS.microdataProps * 2)}</div>`,
    );
    assert.equal((wide[0]?.props.name as string[] | undefined)?.length, STRUCTURED_LIMITS.microdataProps);
  });
});

describe('mapFields', () => {
  const items = read(page(ld(PRODUCT), ''));

  test('maps by name and schema.org synonyms, coerced to the field types', () => {
    const m = mapFields(
      fields({
        title: 'string',
        price: 'number',
        currency: 'string',
        sku: 'string',
        brand: 'string',
        image: 'string',
        in_stock: 'boolean',
      }),
      items,
      PRODUCT_TEXT,
    );
    assert.deepEqual(m.data, {
      title: 'Blue Kettle',
      price: 24.5,
      currency: 'USD',
      sku: 'BK-17',
      brand: 'Acme',
      image: 'https://shop.test/k.jpg',
      in_stock: true,
    });
    assert.deepEqual(m.missing, []);
  });

  test('the visible page wins: values the cleaned text does not show are left to the model', () => {
    const m = mapFields(fields({ name: 'string', price: 'number' }), items, '# Blue Kettle\n\nPrice: $19.99');
    assert.deepEqual(m.answered, ['name']);
    assert.deepEqual(
      m.missing.map((f) => f.name),
      ['price'],
    );
  });

  test('fields the data lacks, objects and mismatched types are missing', () => {
    const m = mapFields(
      fields({ name: 'string', colour: 'string', dims: { w: 'number' }, sku: 'integer' }),
      items,
      PRODUCT_TEXT,
    );
    assert.deepEqual(m.answered, ['name']);
    assert.deepEqual(
      m.missing.map((f) => f.name),
      ['colour', 'dims', 'sku'],
    );
  });

  test('lists of scalars and integers', () => {
    const tagged = read(
      page(ld({ '@type': 'Product', name: 'Mug', keywords: ['tea', 'mugs'], rating: '4.5' }), ''),
    );
    const m = mapFields(fields({ keywords: ['string'], rating: 'integer' }), tagged, 'Mug: tea, mugs. 4.5');
    assert.deepEqual(m.data, { keywords: ['tea', 'mugs'] });
  });
});

describe('planFromStructuredData', () => {
  const items = read(page(ld(PRODUCT), ''));

  test('every field answered: no schema left for the model', () => {
    const schema = normalizeSchema({ name: 'string', sku: 'string' });
    const plan = planFromStructuredData(schema, items, PRODUCT_TEXT);
    assert.equal(plan?.rest, null);
    assert.deepEqual(mergeAnswer(schema, plan!.mapping, {}), { name: 'Blue Kettle', sku: 'BK-17' });
  });

  test('some fields answered: the model gets the rest only, answers merge in schema order', () => {
    const schema = normalizeSchema({ name: 'string', colour: 'string', sku: 'string' });
    const plan = planFromStructuredData(schema, items, PRODUCT_TEXT);
    assert.deepEqual(
      plan?.rest?.fields.map((f) => f.name),
      ['colour'],
    );
    assert.deepEqual(Object.keys(mergeAnswer(schema, plan!.mapping, { colour: 'blue' }) as object), [
      'name',
      'colour',
      'sku',
    ]);
  });

  test('prompt schemas, no data, or nothing answered: no plan', () => {
    assert.equal(planFromStructuredData(normalizeSchema('the product name'), items, PRODUCT_TEXT), null);
    assert.equal(planFromStructuredData(normalizeSchema({ name: 'string' }), [], PRODUCT_TEXT), null);
    const buttons = read(page('', '<button>Add to cart</button>'));
    assert.equal(planFromStructuredData(normalizeSchema({ name: 'string' }), buttons, PRODUCT_TEXT), null);
    assert.equal(planFromStructuredData(normalizeSchema({ colour: 'string' }), items, PRODUCT_TEXT), null);
  });
});

describe('lists of objects', () => {
  const schema = normalizeSchema({ items: [{ name: 'string', price: 'number' }] });
  const listing = '# Lamps\n\n- Red Lamp $12.00\n- Blue Lamp $15.00';

  test('a JSON-LD ItemList whose every element maps', () => {
    const items = read(
      page(
        ld({
          '@type': 'ItemList',
          itemListElement: [
            {
              '@type': 'ListItem',
              position: 1,
              item: { '@type': 'Product', name: 'Red Lamp', offers: { price: 12 } },
            },
            {
              '@type': 'ListItem',
              position: 2,
              item: { '@type': 'Product', name: 'Blue Lamp', offers: { price: 15 } },
            },
          ],
        }),
        '',
      ),
    );
    const m = mapFields(schema.fields, items, listing);
    assert.deepEqual(m.data, {
      items: [
        { name: 'Red Lamp', price: 12 },
        { name: 'Blue Lamp', price: 15 },
      ],
    });
  });

  test('several entities of one type make a list; one unmappable element leaves the list to the model', () => {
    const lamp = (name: string, price: number) => ({ '@type': 'Product', name, offers: { price } });
    const both = read(page(ld([lamp('Red Lamp', 12), lamp('Blue Lamp', 15)]), ''));
    assert.equal((mapFields(schema.fields, both, listing).data.items as unknown[]).length, 2);
    const hidden = read(page(ld([lamp('Red Lamp', 12), lamp('Green Lamp', 9)]), ''));
    assert.deepEqual(mapFields(schema.fields, hidden, listing).answered, []);
  });
});
