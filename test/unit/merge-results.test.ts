import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalKey, mergeItems, mergeResults, richness } from '../../shared/merge-results.js';

describe('mergeItems: what one page contributes', () => {
  test('an array gives its items, no data gives nothing', () => {
    assert.deepEqual(mergeItems([{ a: 1 }, 'x']), [{ a: 1 }, 'x']);
    assert.deepEqual(mergeItems(null), []);
    assert.deepEqual(mergeItems(undefined), []);
  });

  test('an object holding arrays of records gives their items, in field order', () => {
    const data = { category: 'Kettles', products: [{ n: 1 }, { n: 2 }], brands: [{ b: 'Acme' }] };
    assert.deepEqual(mergeItems(data), [{ n: 1 }, { n: 2 }, { b: 'Acme' }]);
  });

  test('an object with other fields, whose arrays hold no records, is one record', () => {
    const data = { name: 'Blue Kettle', images: ['a.jpg', 'b.jpg'], variants: [] };
    assert.deepEqual(mergeItems(data), [data]);
  });

  test('an object of arrays only gives all their items, empty ones giving nothing', () => {
    assert.deepEqual(mergeItems({ links: ['/a', '/b'], more: ['/c'] }), ['/a', '/b', '/c']);
    assert.deepEqual(mergeItems({ products: [] }), []);
    assert.deepEqual(mergeItems({}), [{}]);
  });

  test('an object carrying a url is one record even when it holds arrays of records', () => {
    const data = { url: 'https://shop.test/p/1', name: 'Kettle', reviews: [{ stars: 5 }] };
    assert.deepEqual(mergeItems(data), [data]);
  });

  test('scalars and plain objects give themselves', () => {
    assert.deepEqual(mergeItems('text'), ['text']);
    assert.deepEqual(mergeItems(0), [0]);
    assert.deepEqual(mergeItems({ title: 'About' }), [{ title: 'About' }]);
  });
});

describe('mergeResults', () => {
  test('concatenates the arrays of object results across pages', () => {
    const merged = mergeResults([
      { products: [{ name: 'A' }, { name: 'B' }] },
      { products: [{ name: 'C' }] },
      { products: [] },
    ]);
    assert.deepEqual(merged, [{ name: 'A' }, { name: 'B' }, { name: 'C' }]);
  });

  test('records with a url appear once, the richest kept at the first place of its url', () => {
    const listing = {
      products: [
        { url: 'https://shop.test/p/1', name: 'Kettle', price: null, description: '' },
        { url: 'https://shop.test/p/2', name: 'Toaster', price: 30, description: null },
      ],
    };
    const detail1 = { url: 'https://shop.test/p/1', name: 'Kettle', price: 24.5, description: 'Boils.' };
    const poorer2 = { url: 'https://shop.test/p/2', name: null, price: null, description: null };
    assert.deepEqual(mergeResults([listing, detail1, poorer2]), [detail1, listing.products[1]]);
  });

  test('on a tie the earlier record is kept', () => {
    const first = { url: 'https://x.test/a', name: 'first' };
    const second = { url: 'https://x.test/a', name: 'second' };
    assert.deepEqual(mergeResults([[first, second]]), [first]);
  });

  test('url keys ignore surrounding blanks but not other differences', () => {
    const merged = mergeResults([
      [{ url: 'https://x.test/a' }, { url: ' https://x.test/a ', extra: 1 }, { url: 'https://x.test/a/' }],
    ]);
    assert.deepEqual(merged, [{ url: ' https://x.test/a ', extra: 1 }, { url: 'https://x.test/a/' }]);
  });

  test('other items are de-duplicated by value, whatever the key order', () => {
    const merged = mergeResults([
      [{ a: 1, b: { c: [1, 2] } }, 'x', 3],
      [{ b: { c: [1, 2] }, a: 1 }, 'x', '3', { a: 1, b: { c: [2, 1] } }],
    ]);
    assert.deepEqual(merged, [{ a: 1, b: { c: [1, 2] } }, 'x', 3, '3', { a: 1, b: { c: [2, 1] } }]);
  });

  test('an empty or blank url is not a key: such records are compared by value', () => {
    const merged = mergeResults([
      [
        { url: '', n: 1 },
        { url: '', n: 1 },
        { url: '', n: 2 },
      ],
    ]);
    assert.deepEqual(merged, [
      { url: '', n: 1 },
      { url: '', n: 2 },
    ]);
  });

  test('pages without data contribute nothing; no pages merge to an empty array', () => {
    assert.deepEqual(mergeResults([null, { title: 'T' }, null]), [{ title: 'T' }]);
    assert.deepEqual(mergeResults([]), []);
  });

  test('does not change its input', () => {
    const pages = [{ items: [{ url: 'u', a: 1 }] }, { items: [{ url: 'u', a: 1, b: 2 }] }];
    const copy = structuredClone(pages);
    mergeResults(pages);
    assert.deepEqual(pages, copy);
  });
});

describe('helpers', () => {
  test('richness counts fields holding a value', () => {
    assert.equal(richness({ a: 1, b: null, c: '', d: [], e: {}, f: false, g: 0, h: ' ' }), 3);
  });
  test('canonicalKey is equal for equal values only', () => {
    assert.equal(
      canonicalKey({ a: 1, b: [1, { c: 2, d: 3 }] }),
      canonicalKey({ b: [1, { d: 3, c: 2 }], a: 1 }),
    );
    assert.notEqual(canonicalKey({ a: 1 }), canonicalKey({ a: '1' }));
    assert.notEqual(canonicalKey([1, 2]), canonicalKey([2, 1]));
    assert.equal(canonicalKey({ a: 1, b: undefined }), canonicalKey({ a: 1 }));
  });
});
