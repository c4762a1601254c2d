// A value a page shows twice: a recipe site's desktop column and its mobile tab each hold the recipe's
// image, in frames of one class, beside related recipes' thumbnails. Before, a one-value field's selector
// had to name one node, so only the image's places in the body were kept, and an extra wrapper (some pages
// have one) moved them: every later page went to the model for the image. A selector whose nodes all read
// the same value now answers; nodes that read differently leave the field to the model.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

const IMAGES = ['soup', 'slice', 'bread', 'curry', 'pie', 'salad'].map(
  (name) => `https://cdn.cook.test/images/${name}.jpg`,
);

function page(image: string, opts: { wrapped?: boolean; mobileImage?: string } = {}): string {
  const frame = (src: string) => `<div class="image-frame recipes"><img src="${src}"></div>`;
  const desktop = `<div class="panel recipe-panel"><h1>A recipe</h1><div class="section">${frame(image)}</div></div>`;
  return `<html><body><div class="page">
    ${opts.wrapped ? `<div class="layout-extra">${desktop}</div>` : desktop}
    <div class="tabs"><div class="tab-pane">${frame(opts.mobileImage ?? image)}</div></div>
    <div class="related"><div class="thumb"><img src="https://cdn.cook.test/images/other.jpg"></div></div>
  </div></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://cook.test/recipes/soup' });
const FIELDS = learnableFields(normalizeSchema({ image: 'string' }).fields) ?? [];

describe('an image a page shows twice, some pages with an extra wrapper', () => {
  let known: FieldCandidates | null = null;
  // Learnt as a crawl meets them: the third page has the wrapper.
  for (const [i, image] of IMAGES.slice(0, 4).entries())
    known = learnFromAnswer(at(page(image, { wrapped: i === 2 })), FIELDS, { image }, known);

  test('the image is learnt from the frames, not only from places in the body', () => {
    const selectors = (known?.image ?? []).map((c) => c.selector);
    assert.ok(
      selectors.some((s) => !s.startsWith('body >')),
      selectors.join(' ; '),
    );
  });

  test('a page with the wrapper and one without both answer the image', () => {
    const plain = applyExtractor(at(page(IMAGES[4] as string)), FIELDS, known ?? {});
    assert.equal(plain.data.image, IMAGES[4]);
    const wrapped = applyExtractor(at(page(IMAGES[5] as string, { wrapped: true })), FIELDS, known ?? {});
    assert.equal(wrapped.data.image, IMAGES[5]);
  });

  test('copies that differ leave the image to the model', () => {
    const html = page(IMAGES[4] as string, { mobileImage: IMAGES[5] as string });
    const out = applyExtractor(at(html), FIELDS, known ?? {});
    assert.equal(out.data.image, undefined);
    assert.ok(out.unanswered.includes('image'));
  });
});
