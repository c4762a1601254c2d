// Pages with structured data for the structured-data unit tests: a JSON-LD script, a page around it, and
// what the model-free path answers for a schema given the page's cleaned text.
import { load } from 'cheerio';
import { mapFields } from '../../activities/reading/structured-data/map-fields.js';
import { readStructuredData } from '../../activities/reading/structured-data/read.js';
import { normalizeSchema } from '../../shared/schema-input.js';

export const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
export const page = (head: string, body: string) => `<html><head>${head}</head><body>${body}</body></html>`;
export const read = (html: string) => readStructuredData(load(html));
export const fields = (map: Record<string, unknown>) => normalizeSchema(map).fields;

/** What structured data answers of a schema on a page: the HTML it is read from and the cleaned text shown. */
export function answer(schema: Record<string, unknown>, html: string, text: string) {
  return mapFields(fields(schema), read(html), text);
}

/** A JSON-LD product page: its data in the head, `body` as its visible HTML. */
export const productPage = (product: Record<string, unknown>, body = '') =>
  page(ld({ '@context': 'https://schema.org', '@type': 'Product', ...product }), body);
