// A page that runs on into other stories (infinite scroll): the story its <title> names stays, the next go.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { runChain } from '../../../activities/reading/cleaners/index.js';
import { otherStories } from '../../../activities/reading/cleaners/stories.js';

const LONG = 'Words of a body long enough to be a story of its own, sentence after sentence. '.repeat(4);

const story = (headline: string, words: string) =>
  `<article class="post"><header><h1 class="headline">${headline}</h1><p>By Ada</p></header>` +
  `<div class="body">${`<p>${words} ${'goes on in sentences of a real story, one after another. '.repeat(3)}</p>`.repeat(4)}</div></article>`;

const feed = (title: string) =>
  `<html><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav><main><div class="feed">` +
  `${story('Kettles boil faster at sea level', 'The kettle story')}` +
  `${story('Teapots are back in fashion', 'The teapot story')}` +
  `${story('Cups without handles', 'The cup story')}</div></main></body></html>`;

describe('otherStories', () => {
  test("the stories after the title's story go, in every cleaner that drops chrome", () => {
    const html = feed('Kettles boil faster at sea level | The Daily Kettle');
    for (const chain of [[{ name: 'readability' }, { name: 'text' }], [{ name: 'markdown' }]]) {
      const out = runChain(html, chain);
      assert.ok(out.includes('The kettle story'), JSON.stringify(chain));
      for (const gone of ['teapot', 'The cup story'])
        assert.ok(!out.includes(gone), `${gone} ${JSON.stringify(chain)}`);
    }
  });

  test('nothing goes when no h1 says the title, or the page has one h1, or the h1s are not in like boxes', () => {
    const stories = (html: string, title: string) => otherStories(load(html), title, () => false).length;
    assert.equal(stories(feed('The Daily Kettle'), 'The Daily Kettle'), 0);
    assert.equal(stories(story('Kettles', 'One'), 'Kettles'), 0);
    // The site's name in an h1 of the header, and the story's h1 in the article: not two stories.
    const header = `<header class="site"><h1>Kettles</h1></header><article class="post"><h1>Kettles</h1><p>Text.</p></article>`;
    assert.equal(stories(header, 'Kettles'), 0);
    // Sections of one article, each under an h1 of its own, are not stories.
    const sections = `<article><div class="sec"><h1>Kettles</h1><p>${LONG}</p></div><div class="sec"><h1>Spouts</h1><p>${LONG}</p></div></article>`;
    assert.equal(stories(sections, 'Kettles'), 0);
    // A hero holding the headline alone, beside the body (with an h1 misused inside it): the body stays.
    const hero = `<div class="row"><h1>Kettles</h1></div><div class="row"><article><h1>Spouts</h1><p>${LONG}</p></article></div>`;
    assert.equal(stories(hero, 'Kettles'), 0);
    // The title said twice (a hero and the article): the box holding it again is the page's.
    const twice = `<div class="row"><article><h1>Kettles</h1><p>${LONG}</p></article></div><div class="row"><article><h1>Kettles</h1><p>${LONG}</p></article></div>`;
    assert.equal(stories(twice, 'Kettles'), 0);
    // A story kept by keep_selectors stays.
    const $ = load(feed('Kettles boil faster at sea level'));
    const kept = $('article').get(2)!;
    assert.equal(
      otherStories($, 'Kettles boil faster at sea level', (element) => element === kept).length,
      1,
    );
  });
});
