// Whole product pages as common shop systems render them (Shopify, WooCommerce, Magento, Shopware,
// PrestaShop, BigCommerce, a product group), in several languages and currencies, read and cleaned the way
// an extract job does. With the schema of strings a user would write, each page answers exactly the fields
// listed — right — and leaves every other to the model: hidden "Sold out" badges and related products'
// labels do not decide availability, a list price or a price only "free shipping over" shows is no price,
// a shop's own name is no brand, and offers that differ by variant go to the model.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { runChain } from '../../activities/reading/cleaners/index.js';
import { planFromStructuredData } from '../../activities/reading/structured-data/answer.js';
import { readStructuredData } from '../../activities/reading/structured-data/read.js';
import { defaultChainFor } from '../../shared/cleaners.js';
import { normalizeSchema } from '../../shared/schema-input.js';

const schema = normalizeSchema({
  price: 'string',
  currency: 'string',
  availability: 'string',
  sku: 'string',
  brand: 'string',
  gtin: 'string',
});

function answered(file: string) {
  const html = readFileSync(new URL(`../fixtures/shops/${file}`, import.meta.url), 'utf8');
  const cleaned = runChain(html, defaultChainFor(schema), { baseUrl: 'https://shop.test/p' });
  return planFromStructuredData(schema, readStructuredData(load(html)), cleaned)?.mapping.data ?? {};
}

const pages: [string, Record<string, string>][] = [
  // A hidden "Sold out" badge and a related product's badge; the brand is the shop's own name.
  [
    'shopify-dawn-en.html',
    { price: '£42.00 GBP', currency: 'GBP', availability: 'In stock', sku: 'HL-APR-01' },
  ],
  // Sale price beside the struck list price (also a ListPrice specification); "Vorrätig".
  [
    'woocommerce-de.html',
    { price: '34,90 €', currency: 'EUR', availability: 'In stock', sku: 'BIA-0116', brand: 'Bialetti' },
  ],
  // Microdata; an old price; a related product "En rupture de stock".
  [
    'magento-fr.html',
    { price: '129,90 €', currency: 'EUR', availability: 'In stock', sku: 'MC-CAS-24', brand: 'Staub' },
  ],
  // Microdata with thousands, a UVP list price, gtin13 shown as EAN, productID and mpn beside the sku.
  [
    'shopware-de.html',
    {
      price: '1.299,00 €',
      currency: 'EUR',
      availability: 'In stock',
      sku: '06019H5202',
      brand: 'Bosch Professional',
      gtin: '4059952512345',
    },
  ],
  // A price stated as "24.90" shown as "24,90 €"; the brand is the shop's name.
  [
    'prestashop-es.html',
    { price: '24,90 €', currency: 'EUR', availability: 'In stock', sku: 'AOVE-5L', gtin: '8412345678905' },
  ],
  // Sold out: a disabled buy button says so; related products still say "Add to Cart".
  [
    'bigcommerce-soldout-en.html',
    {
      price: '$64.95',
      currency: 'USD',
      availability: 'Out of stock',
      sku: 'RO-SK12',
      brand: 'Lodge',
      gtin: '075536300137',
    },
  ],
  // Variants at different prices and stock: only the brand is the group's.
  ['variants-nl.html', { brand: 'Rainkeeper' }],
  // The stated price is the struck compare-at price.
  ['listprice-it.html', { currency: 'EUR', availability: 'In stock', sku: 'ZT-40', brand: 'Ferrino' }],
  // A stale stated price that the page shows only in "free shipping over $59.00".
  ['stale-price-en.html', { currency: 'USD', availability: 'In stock', sku: 'GC-WB-40' }],
];

describe('product pages of common shop systems', () => {
  for (const [file, expected] of pages)
    test(file, () => {
      assert.deepEqual(answered(file), expected);
    });
});
