// The prose measure the readability cleaner uses to doubt Readability's pick: sentences count, lists of
// names and addresses do not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { PROSE_BLOCK_CHARS, proseChars } from '../../../activities/reading/cleaners/prose.js';

const SENTENCE = 'A sentence of the letter that goes on for a while, as letters do, and then ends. ';
const prose = (html: string) => proseChars(load(html).root().get(0)!);

describe('proseChars', () => {
  test('counts paragraphs of sentences, inline markup and all', () => {
    const paragraph = `<p>${SENTENCE}<em>It</em> <a href="/x">goes on</a> a little.</p>`;
    assert.equal(prose(paragraph), load(paragraph).root().text().trim().length);
    assert.equal(prose(`<div>${paragraph}${paragraph}</div>`), 2 * prose(paragraph));
  });

  test(`a line under ${PROSE_BLOCK_CHARS} characters, or without a sentence end, is no prose`, () => {
    assert.equal(prose('<p>Short, and it ends.</p>'), 0);
    assert.equal(prose(`<p>${'word '.repeat(40)}</p>`), 0);
  });

  test('a list of names with commas, split by <br>, and a table of addresses are no prose', () => {
    const names = Array.from({ length: 60 }, (_, i) => `Jane Doe ${i}, Some University`).join('<br>');
    assert.equal(prose(`<p>${names}. Ret.</p>`), 0);
    const rows = Array.from(
      { length: 40 },
      (_, i) => `Town ${i} Jane Doe jane.doe.${i}@parliament.example`,
    ).join(' ');
    assert.equal(prose(`<p>${rows}</p>`), 0);
  });

  test('a page of 20,000 nested elements is measured without recursion', () => {
    const depth = 20_000;
    const html = `${'<div>'.repeat(depth)}<p>${SENTENCE}</p>${'</div>'.repeat(depth)}`;
    assert.equal(prose(html), SENTENCE.trim().length);
  });
});
