// A time a recipe card spells in hours and minutes ("Total time | 1 hr 15 mins") where the field is a
// number of minutes (75). Its numbers (1, 15) are not the value, so no candidate read it and every page went
// to the model for it. The text is now read as a duration, as the structured-data path reads one, in the
// unit the field's name names; a neighbour's time moved into its place is not read for it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';

/** A card of generated class names: the times are read by their place. Total first; `null` leaves it out. */
function page(total: string | null, prep = '20 mins', cook = '30 mins'): string {
  const row = (label: string, value: string) =>
    `<li><span class="t__x1">${label}</span><span class="t__x2">${value}</span></li>`;
  return `<html><body><main><h1>A recipe</h1><div><ul>
    ${total === null ? '' : row('Total time', total)}${row('Prep', prep)}${row('Cook', cook)}
  </ul></div><p>Serves 4</p></main></body></html>`;
}

const at = (html: string) => ({ $: load(html), url: 'https://shop.test/recipes/bread' });
const MINUTES = learnableFields(normalizeSchema({ total_time: 'number' }).fields) ?? [];
const HOURS = learnableFields(normalizeSchema({ total_time_hours: 'number' }).fields) ?? [];

function learnt(fields: typeof MINUTES, pages: [string, number][]): FieldCandidates | null {
  let known: FieldCandidates | null = null;
  const name = (fields[0] as { name: string }).name;
  for (const [total, value] of pages)
    known = learnFromAnswer(at(page(total)), fields, { [name]: value }, known);
  return known;
}

describe('a total time spelled in hours and minutes', () => {
  const known = learnt(MINUTES, [
    ['1 hr 15 mins', 75],
    ['45 mins', 45],
    ['2 hrs', 120],
  ]);

  test('it is learnt as a duration', () => {
    assert.ok(
      (known?.total_time ?? []).some((c) => c.transform.kind === 'duration'),
      JSON.stringify(known?.total_time),
    );
  });

  test('later pages answer their time in minutes, however it is spelled', () => {
    for (const [total, want] of [
      ['1 hr 30 mins', 90],
      ['1 hour 5 minutes', 65],
      ['1h15', 75],
      ['50 mins', 50],
    ] as const) {
      const out = applyExtractor(at(page(total)), MINUTES, known ?? {});
      assert.equal(out.data.total_time, want, total);
    }
  });

  test('a page without the total does not answer the prep time moved into its place', () => {
    const out = applyExtractor(at(page(null, '25 mins')), MINUTES, known ?? {});
    assert.notEqual(out.data.total_time, 25);
    assert.ok(out.unanswered.includes('total_time'));
  });

  test('text that is no duration leaves the field to the model', () => {
    const out = applyExtractor(at(page('overnight')), MINUTES, known ?? {});
    assert.ok(out.unanswered.includes('total_time'));
  });

  test('a field that names hours gets hours', () => {
    const hours = learnt(HOURS, [
      ['1 hr 30 mins', 1.5],
      ['2 hrs', 2],
    ]);
    const out = applyExtractor(at(page('1 hr 15 mins')), HOURS, hours ?? {});
    assert.equal(out.data.total_time_hours, 1.25);
  });
});
