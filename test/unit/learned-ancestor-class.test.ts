// A value whose node has only the class its look-alikes share, inside a block named by a later class: a
// recipe card writes each time as `<div class="mv-create-time mv-create-time-total"><em>Total Time:</em>
// <span class="mv-create-time-format">…</span></div>`. Before, the nearest named ancestor was taken by its
// first class (every time's block has it), so the total was read by its place alone: a wrapper moved it and
// a page without a total went to the model. The ancestor's later classes now name it too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

/** A card with prep, cook and (unless null) total times; `wrapped` adds a wrapper around the card. */
function page(total: string | null, opts: { wrapped?: boolean; cook?: string } = {}): string {
  const time = (kind: string, label: string, value: string) =>
    `<div class="mv-create-time mv-create-time-${kind}"><em class="mv-create-time-label">${label}: </em><span class="mv-create-time-format">${value}</span></div>`;
  const card = `<div class="mv-create-card"><h2>A recipe</h2><div class="mv-create-times">
    ${time('prep', 'Prep Time', '20 minutes')}${time('active', 'Cook Time', opts.cook ?? '30 minutes')}
    ${total === null ? '' : time('total', 'Total Time', total)}</div></div>`;
  return `<html><body><main>${opts.wrapped ? `<div class="extra">${card}</div>` : card}</main></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://blog.test/croissants/' });
const FIELDS = learnableFields(normalizeSchema({ total_time: 'number' }).fields) ?? [];

describe("a total time named by its block's later class", () => {
  let known: FieldCandidates | null = null;
  // Learnt as a crawl meets them: the third page has a wrapper.
  for (const [i, [total, value]] of (
    [
      ['50 minutes', 50],
      ['1 hour 10 minutes', 70],
      ['55 minutes', 55],
    ] as const
  ).entries())
    known = learnFromAnswer(at(page(total, { wrapped: i === 2 })), FIELDS, { total_time: value }, known);

  test('the block is named by its later class', () => {
    const selectors = (known?.total_time ?? []).map((c) => c.selector);
    assert.ok(
      selectors.includes('div.mv-create-time.mv-create-time-total span.mv-create-time-format'),
      selectors.join(' ; '),
    );
  });

  test('pages with and without the wrapper answer their total', () => {
    const wrapped = applyExtractor(at(page('45 minutes', { wrapped: true })), FIELDS, known ?? {});
    assert.equal(wrapped.data.total_time, 45);
    const plain = applyExtractor(at(page('1 hour 5 minutes')), FIELDS, known ?? {});
    assert.equal(plain.data.total_time, 65);
  });

  test('a page without a total answers none, never the cook time', () => {
    const out = applyExtractor(at(page(null, { cook: '40 minutes' })), FIELDS, known ?? {});
    // None (the only field: a page without it is left to the model as laid out otherwise), never 40.
    assert.notEqual(out.data.total_time, 40);
    assert.ok(out.data.total_time === null || out.unanswered.includes('total_time'));
  });
});
