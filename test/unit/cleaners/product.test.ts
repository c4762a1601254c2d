// A shop's product page: Readability takes the customer reviews, whose prose outweighs the description and its
// table of attributes; the readability cleaner puts the product's own description first (fixtures written
// for these tests).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { productDescription } from '../../../activities/reading/cleaners/product.js';

const readable = (html: string) => runChain(html, [{ name: 'readability' }, { name: 'text' }]);

const DESCRIPTION =
  '<div class="description" itemprop="description"><table><tr><td><b>Aroma</b></td><td>Red berries, citrus, sweet</td></tr>' +
  '<tr><td><b>Origin</b></td><td>Sidama cooperative, Ethiopia</td></tr><tr><td><b>Process</b></td>' +
  '<td>Hand picked, washed, sun dried</td></tr></table><p>Single origin arabica grown at 1,800 metres.</p></div>';
const review = (i: number) =>
  `<div class="review" itemprop="review" itemscope itemtype="https://schema.org/Review">` +
  `<span itemprop="description" content="comment"></span><h4>Review ${i}</h4>` +
  `<p>Review ${i}: I have tried many coffees over the years and this one stands out for its smell, its taste ` +
  'and the way it keeps in the tin; the price is fair for what it is, and the beans arrive quickly.</p></div>';
const reviews = Array.from({ length: 6 }, (_, i) => review(i)).join('');

const page = (scopes: string) =>
  `<html><body><header><a href="/">Shop</a></header>${scopes}<footer>Shipping and returns</footer></body></html>`;
const product = (name: string) =>
  `<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">${name}</h1>` +
  `<p class="price">€16.90</p>${DESCRIPTION}<div class="reviews">${reviews}</div></div>`;

describe('product description', () => {
  test("is found in the page's one Product, not in its reviews", () => {
    const $ = load(page(product('Sidamo beans')));
    assert.equal(productDescription($)?.attribs.class, 'description');
  });

  test('a page of several products (a listing) has no one description', () => {
    assert.equal(productDescription(load(page(product('Sidamo') + product('Yirgacheffe')))), null);
  });

  test('the readability cleaner puts the description before the reviews it picked', () => {
    const text = readable(page(product('Sidamo beans')));
    for (const kept of ['Red berries, citrus, sweet', 'Hand picked, washed, sun dried', 'Review 5:'])
      assert.ok(text.includes(kept), `${kept}\n${text.slice(0, 300)}`);
    assert.ok(text.indexOf('Red berries') < text.indexOf('Review 0:'));
  });
});
