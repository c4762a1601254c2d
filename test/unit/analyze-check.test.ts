// Checking a suggested schema on its page (activities/analyze/sample-check.ts) and the values the structure's
// selectors read off the page for the fallback schema (candidate-fields.ts, page-structure.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkSample,
  hasValue,
  recordShape,
  retryFeedback,
  structureSample,
} from '../../activities/analyze/sample-check.js';
import { priceAmount, type SampleValue } from '../../activities/reading/page-structure/candidate-fields.js';
import { analyzeStructure } from '../../activities/reading/page-structure/page-structure.js';
import { schemaYaml } from '../../activities/reading/page-structure/suggested-schema.js';
import { validateSchemaYaml } from '../../shared/schema-input.js';

const URL_ = 'https://shop.example/kettles';
const card = (i: number) =>
  `<div class="card item"><a href="/p/${i}">Kettle ${i}</a><span class="price">€${i}9,00</span><img src="/i/${i}.png"></div>`;
const LISTING = `<html><head><title>Kettles</title></head><body><main><h1>Kettles</h1>
  <section class="grid">${[1, 2, 3, 4].map(card).join('')}</section></main></body></html>`;
const PRODUCT = `<html><head><title>Kettle</title></head><body><main><h1>Blue kettle</h1>
  <span class="price">$1,299.00</span><time datetime="2024-01-01">1 Jan 2024</time>
  <dl><dt>Capacity:</dt><dd>1.7 l</dd></dl><img src="/k.png"><p>${'A fine kettle. '.repeat(8)}</p></main></body></html>`;

const fields = (...names: string[]) =>
  names.map((name) => ({ name, type: 'string' as const, description: '' }));
const listingShape = recordShape(
  validateSchemaYaml(schemaYaml('kettle', fields('isbn', 'title'), 'listing')),
);
const flatShape = recordShape(validateSchemaYaml(schemaYaml('kettle', fields('isbn', 'title'), 'product')));

describe('checking a sample', () => {
  test("a schema's record fields: the items' properties of a listing schema, else its fields", () => {
    assert.deepEqual(listingShape, { listing: true, fields: ['isbn', 'title'] });
    assert.deepEqual(flatShape, { listing: false, fields: ['isbn', 'title'] });
  });

  test('no items, or items of nothing, is nothing; one value anywhere is something', () => {
    assert.deepEqual(checkSample({ items: [] }, listingShape), { filled: 0, emptyFields: ['isbn', 'title'] });
    assert.equal(checkSample({ items: [{ isbn: null, title: '  ' }, {}] }, listingShape).filled, 0);
    assert.equal(checkSample({}, listingShape).filled, 0);
    assert.equal(checkSample('not an object', listingShape).filled, 0);
    assert.deepEqual(checkSample({ items: [{ isbn: null, title: 'A' }, { title: 'B' }] }, listingShape), {
      filled: 2,
      emptyFields: ['isbn'],
    });
    assert.equal(checkSample({ isbn: null, title: null }, flatShape).filled, 0);
    assert.deepEqual(checkSample({ isbn: null, title: 'Kettle' }, flatShape), {
      filled: 1,
      emptyFields: ['isbn'],
    });
  });

  test('values: numbers and booleans count, blanks and empty containers do not', () => {
    for (const v of [0, false, 'x', ['a'], { a: 1 }]) assert.equal(hasValue(v), true, JSON.stringify(v));
    for (const v of [null, undefined, '', ' ', [], [null], {}, { a: null }]) assert.equal(hasValue(v), false);
  });

  test("the structure's records shaped as the fallback schema's sample", () => {
    const records: Record<string, SampleValue>[] = [
      { isbn: null, title: 'A', extra: 'dropped' },
      { title: 'B', isbn: null },
    ];
    assert.deepEqual(structureSample(records, listingShape), {
      items: [
        { isbn: null, title: 'A' },
        { isbn: null, title: 'B' },
      ],
    });
    assert.deepEqual(structureSample(records, flatShape), { isbn: null, title: 'A' });
    assert.deepEqual(structureSample([], flatShape), { isbn: null, title: null });
  });

  test('the feedback names what came out empty and what the page shows, and answers none of the questions', () => {
    const structure = analyzeStructure(LISTING, URL_);
    const text = retryFeedback(
      listingShape,
      structure,
      'Applied to this page, your schema extracted 0 items.',
    );
    assert.match(text, /extracted 0 items/);
    assert.match(text, /came out empty: isbn, title/);
    assert.match(text, /4 repeated items matching `section\.grid > div\.card\.item`/);
    assert.match(text, /- price: the item's price as a number/);
    // The analysis schema asks for fields, page type, summary and schema name: no heading or label says so.
    assert.doesNotMatch(text, /^#.*\bfields\b/im);
    assert.doesNotMatch(text, /^\s*-?\s*(page type|site summary|schema name|fields)\s*:/im);
  });
});

describe("values read off the page by the structure's selectors", () => {
  test('a listing: one record per item, links and images absolute, prices as numbers', () => {
    const s = analyzeStructure(LISTING, URL_);
    assert.equal(s.records?.length, 4);
    assert.deepEqual(s.records?.[1], {
      title: 'Kettle 2',
      url: 'https://shop.example/p/2',
      price: 29,
      image_url: 'https://shop.example/i/2.png',
    });
  });

  test('a single item: its one record', () => {
    const s = analyzeStructure(PRODUCT, 'https://shop.example/k/1');
    assert.deepEqual(s.records, [
      {
        title: 'Blue kettle',
        price: 1299,
        published_at: '2024-01-01',
        capacity: '1.7 l',
        description: 'A fine kettle. '.repeat(8).trim(),
        image_url: 'https://shop.example/k.png',
      },
    ]);
  });

  test('price amounts: thousands separators and decimal commas', () => {
    assert.equal(priceAmount('$1,299.00'), 1299);
    assert.equal(priceAmount('€19,00'), 19);
    assert.equal(priceAmount('1.299,50 €'), 1299.5);
    assert.equal(priceAmount('EUR 12'), 12);
    assert.equal(priceAmount('free'), null);
    assert.equal(priceAmount(null), null);
  });
});
