// Cleaners stay linear on hostile pages: the line tidying that replaced backtracking regexes gives the same
// output as they did, and the shapes that took minutes (a <pre> of spaces, rows of &nbsp; or <br>, long tables,
// thousands of table-wrapper texts) finish in well under the time limit. Bounds are generous: before the
// fix these inputs ran for minutes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { CLEANERS } from '../../../activities/reading/cleaners/index.js';
import { collapseBlankLines, unwrapTables } from '../../../activities/reading/cleaners/lines.js';
import { htmlToText } from '../../../activities/reading/cleaners/text.js';
import { boundWhitespace, MAX_WHITESPACE_RUN } from '../../../activities/reading/cleaners/whitespace.js';

/** What the code did before, as the reference for the linear versions. */
const OLD_BLANK_LINES = (s: string) => s.replace(/\n(?:[ \t]*\n){2,}/g, '\n\n');
const OLD_WRAPPER = (s: string) =>
  s.replace(/<div class="joplin-table-wrapper">(<table[\s\S]*?<\/table>)<\/div>(?=\n|$)/g, '$1');

/** A small deterministic generator, so a failure can be reproduced. */
function randomText(seed: number, pieces: string[], length: number): string {
  let state = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += pieces[state % pieces.length];
  }
  return out;
}

/**
 * Milliseconds of CPU fn takes (this process's user + system time): unlike wall time it does not grow
 * while other processes hold the cores, so a loaded machine cannot fail a linear cleaner, and a frozen
 * one (minutes of CPU) still fails.
 */
function timed(fn: () => unknown): number {
  const started = process.cpuUsage();
  fn();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

const NOT_FROZEN_MS = 5_000;

describe('collapseBlankLines', () => {
  test('matches the regex it replaced', () => {
    for (const s of ['', 'a', '\n', '\n\n\n', 'a\n\n\nb', 'a\n \n\t\nb', 'a\n  \nb', ' \n \n \n', 'a\n\n']) {
      assert.equal(collapseBlankLines(s), OLD_BLANK_LINES(s), JSON.stringify(s));
    }
    for (let seed = 1; seed <= 300; seed++) {
      const s = randomText(seed, ['\n', ' ', '\t', 'a', '\r'], 40);
      assert.equal(collapseBlankLines(s), OLD_BLANK_LINES(s), JSON.stringify(s));
    }
  });
});

describe('unwrapTables', () => {
  const wrapped = '<div class="joplin-table-wrapper"><table><tr><td>x</td></tr></table></div>';

  test('matches the regex it replaced', () => {
    for (const s of [
      wrapped,
      `a\n\n${wrapped}\n\nb`,
      `${wrapped}x`,
      `${wrapped}${wrapped}\n`,
      '<div class="joplin-table-wrapper"><table></table></div></table></div>\n',
    ]) {
      assert.equal(unwrapTables(s), OLD_WRAPPER(s), JSON.stringify(s));
    }
    const pieces = [
      '<div class="joplin-table-wrapper">',
      '<table>',
      '</table>',
      '</div>',
      '\n',
      'x',
      '</table></div>',
    ];
    for (let seed = 1; seed <= 300; seed++) {
      const s = randomText(seed, pieces, 30);
      assert.equal(unwrapTables(s), OLD_WRAPPER(s), JSON.stringify(s));
    }
  });

  test('thousands of wrappers that never close: linear', () => {
    const text = '<div class="joplin-table-wrapper"><table> '.repeat(100_000);
    assert.ok(timed(() => assert.equal(unwrapTables(text), text)) < NOT_FROZEN_MS);
  });
});

describe('hostile shapes finish promptly', () => {
  test('text: a <pre> of 400,000 spaces then text (was minutes: `\\s+$` retried from every space)', () => {
    let out = '';
    const ms = timed(() => {
      out = htmlToText(`<pre>${' '.repeat(400_000)}after the spaces</pre><p>next</p>`);
    });
    assert.ok(ms < NOT_FROZEN_MS, `took ${ms} ms`);
    assert.match(out, /after the spaces\n\nnext$/);
  });

  const markdownCases: [string, string][] = [
    ['a <pre> of 400,000 spaces', `<pre>${' '.repeat(400_000)}after</pre>`],
    ['a paragraph of 200,000 &nbsp;', `<p>a${'&nbsp;'.repeat(200_000)}after</p>`],
    ['50,000 <br>', `<p>a${'<br>'.repeat(50_000)}after</p>`],
    [
      'a table of 20,000 rows',
      `<table>${'<tr><td>a</td><td>b</td></tr>'.repeat(20_000)}</table><p>after</p>`,
    ],
    [
      '100,000 table-wrapper texts',
      `<p>${'&lt;div class="joplin-table-wrapper"&gt;&lt;table&gt; '.repeat(100_000)}after</p>`,
    ],
  ];
  for (const [name, html] of markdownCases) {
    test(`markdown: ${name}`, () => {
      let out = '';
      const ms = timed(() => {
        out = CLEANERS.markdown!(html, {});
      });
      assert.ok(ms < NOT_FROZEN_MS, `took ${ms} ms`);
      assert.match(out, /after$/);
    });
  }
});

describe('boundWhitespace', () => {
  test('cuts long whitespace runs and surplus line breaks, keeps the text', () => {
    const $ = load(`<pre>a${' '.repeat(500)}b\n\tc</pre><p>x<br><br><br><br>y<br> <br><br>z</p>`);
    boundWhitespace($);
    assert.equal($('pre').text(), `a${' '.repeat(MAX_WHITESPACE_RUN)}b\n\tc`);
    assert.equal($('p').html(), 'x<br><br>y<br> <br>z');
  });
});
