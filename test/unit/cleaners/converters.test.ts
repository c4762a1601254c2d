// The conversion steps on their own: HTML to Markdown (turndown + GFM), to plain text, to sanitised HTML.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { htmlToMarkdown } from '../../../activities/reading/cleaners/markdown.js';
import { sanitize } from '../../../activities/reading/cleaners/sanitize.js';
import { htmlToText } from '../../../activities/reading/cleaners/text.js';

const TABLE = `<table>
  <caption>Plans</caption>
  <thead><tr><th>Plan</th><th>Price</th></tr></thead>
  <tbody>
    <tr><td><a href="https://shop.example/basic">Basic</a></td><td>$5 | month</td></tr>
    <tr><td>Pro</td><td>$9</td></tr>
  </tbody>
</table>`;

describe('htmlToMarkdown', () => {
  test('tables stay tables: caption, header row, separator, escaped pipes, links in cells', () => {
    assert.equal(
      htmlToMarkdown(TABLE),
      [
        'Plans',
        '',
        '| Plan | Price |',
        '| --- | --- |',
        '| [Basic](https://shop.example/basic) | $5 \\| month |',
        '| Pro | $9  |',
      ].join('\n'),
    );
  });

  test('a table without a header row gets an empty one, so it is still a table', () => {
    assert.equal(
      htmlToMarkdown('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>'),
      ['|     |     |', '| --- | --- |', '| a   | b   |', '| c   | d   |'].join('\n'),
    );
  });

  test('a table Markdown cannot hold (a list in a cell) stays plain HTML, without wrapper markup', () => {
    const html = '<table><tr><th>a</th></tr><tr><td><ul><li>x</li><li>y</li></ul></td></tr></table>';
    assert.equal(
      htmlToMarkdown(html),
      '<table><tbody><tr><th>a</th></tr><tr><td><ul><li>x</li><li>y</li></ul></td></tr></tbody></table>',
    );
  });

  test('GFM strikethrough and task lists', () => {
    assert.equal(
      htmlToMarkdown('<p><del>old</del> new</p><ul><li><input type="checkbox" checked> done</li></ul>'),
      '~~old~~ new\n\n-   [x]  done',
    );
  });

  test('atx headings, dash bullets, fenced code, collapsed blank lines', () => {
    assert.equal(
      htmlToMarkdown(
        '<h2>Hi</h2><ul><li>a</li></ul><br><br><br><pre><code class="language-py">x = 1</code></pre>',
      ),
      '## Hi\n\n-   a\n\n```py\nx = 1\n```',
    );
  });
});

describe('htmlToText', () => {
  test('no markup; blocks on their own lines; headings keep their case', () => {
    assert.equal(
      htmlToText(
        '<h1>Blue <em>Widget</em></h1><p>Price: <strong>$19.99</strong><br>In stock</p><p>Ships soon.</p>',
      ),
      'Blue Widget\n\nPrice: $19.99\nIn stock\n\nShips soon.',
    );
  });

  test('tables become aligned rows; links print their target once', () => {
    assert.equal(
      htmlToText(
        '<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$5</td></tr></table>' +
          '<p><a href="https://a.example/x">docs</a> <a href="https://a.example/">https://a.example/</a></p>',
      ),
      'Plan    Price\nBasic   $5\n\ndocs [https://a.example/x] https://a.example/',
    );
  });

  test('list items stay list items', () => {
    assert.equal(htmlToText('<ul><li>one</li><li>two</li></ul>'), ' * one\n * two');
  });
});

describe('sanitize', () => {
  test('keeps structure and essential attributes, drops classes, styles, ids and handlers', () => {
    assert.equal(
      sanitize(
        '<div class="c" style="color:red" onclick="steal()"><h2 id="t">T</h2>' +
          '<img src="https://a.example/b.png" alt="b" onerror="x()" width="9">' +
          '<table><tr><td colspan="2" class="q">x</td></tr></table><font>f</font></div>',
      ),
      '<div><h2>T</h2><img src="https://a.example/b.png" alt="b" /><table><tr><td colspan="2">x</td></tr></table>f</div>',
    );
  });

  test('script-like URLs and protocol-relative links lose their target', () => {
    assert.equal(
      sanitize(
        '<a href="javascript:alert(1)">j</a><a href="//evil.example/">p</a><a href="https://ok.example/">o</a>',
      ),
      '<a>j</a><a>p</a><a href="https://ok.example/">o</a>',
    );
  });

  test('elements left without text or images go; images, breaks and table cells stay', () => {
    assert.equal(
      sanitize('<div><p> </p><a href="https://a.example/"><i class="icon"></i></a></div><p>a<br>b</p>'),
      '<p>a<br />b</p>',
    );
    assert.equal(
      sanitize(
        '<a href="https://a.example/"><img src="https://a.example/i.png" alt="" /></a><table><tr><td></td><td>x</td></tr></table>',
      ),
      '<a href="https://a.example/"><img src="https://a.example/i.png" alt="" /></a><table><tr><td></td><td>x</td></tr></table>',
    );
  });

  test('scripts and styles go with their text', () => {
    assert.equal(sanitize('<p>a</p><script>alert(1)</script><style>p{}</style>'), '<p>a</p>');
  });
});

describe('markdown tables without a heading row', () => {
  test('text and comments between cells neither throw nor show (the GFM plugin read them as cells)', () => {
    const html =
      '<table><tbody><tr> <!-- c --> <td>a</td>  <td>b</td> </tr><tr><td>c</td> <td>d</td></tr></tbody></table>';
    const md = runChain(html, [{ name: 'markdown' }]);
    assert.match(md, /\| a +\| b +\|\n\| c +\| d +\|/);
    assert.ok(!md.includes('<!--'));
  });
});
