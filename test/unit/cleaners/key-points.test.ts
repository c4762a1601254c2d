// The key points between the headline and the body: Readability leaves them in the page's header.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { keyPoints } from '../../../activities/reading/cleaners/key-points.js';

const BODY = `<div class="body">${'<p>The body of the story goes on in sentences long enough to be its prose, one after another, as stories do.</p>'.repeat(6)}</div>`;

const page = (list: string) =>
  `<html><head><title>Kettles boil faster | The Daily Kettle</title></head><body><main>` +
  `<div class="header"><h1>Kettles boil faster</h1><div class="key-points"><h2>Key points</h2>${list}</div></div>` +
  `${BODY}</main></body></html>`;

const text = (html: string) => runChain(html, [{ name: 'readability' }, { name: 'text' }]);

describe('key points', () => {
  test('a list of sentences between the headline and the body opens the body', () => {
    const out = text(
      page(
        '<ul><li>Kettles boil water faster at sea level than in the mountains.</li>' +
          '<li>The difference is about a minute for a litre of water.</li></ul>',
      ),
    );
    const at = out.indexOf('Kettles boil water faster');
    assert.ok(at >= 0, out);
    assert.ok(at < out.indexOf('The body of the story'), 'before the body');
  });

  test('a list of links, of short labels or of one item is no key points', () => {
    for (const list of [
      '<ul><li><a href="/a">Another story about kettles that is a headline.</a></li><li><a href="/b">And one more story about teapots, a headline.</a></li></ul>',
      '<ul><li>Kettles</li><li>Teapots</li><li>Cups</li></ul>',
      '<ul><li>Kettles boil water faster at sea level than in the mountains.</li></ul>',
    ]) {
      const $ = load(page(list));
      const found = keyPoints($, $('h1').get(0)!, $('.body p').get(0)!, '');
      assert.equal(found, null, list);
    }
    // One that is found, for the same call.
    const $ = load(
      page(
        '<ol><li>Kettles boil water faster at sea level.</li><li>The difference is about a minute.</li></ol>',
      ),
    );
    assert.equal(keyPoints($, $('h1').get(0)!, $('.body p').get(0)!, '')?.name, 'ol');
    // Nor a list after the body's first paragraph.
    assert.equal(keyPoints($, $('h1').get(0)!, $('h2').get(0)!, ''), null);
  });
});
