// A field read by its place alone, learned first on a page where a missing block had moved its node: the
// candidates of that page read another node on every other page, so the next page empties them. While the
// template is still learning, such a field starts again from that next page's own candidates (and the pages
// agreeing are counted again), instead of being left to the model on every later page.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { learnedCrawler } from '../../bench/real/learned-crawl.js';

interface Recipe {
  title: string;
  description: string | null;
  minutes: number;
}

const RECIPES: Recipe[] = [
  { title: 'Duck confit', description: null, minutes: 150 },
  { title: 'Apple tart', description: 'A crisp tart of thin apple slices on puff pastry.', minutes: 50 },
  { title: 'Beef stew', description: 'Slow-cooked beef with carrots, onions and red wine.', minutes: 190 },
  { title: 'Fish pie', description: 'Smoked haddock and prawns under a crust of mash.', minutes: 70 },
  { title: 'Leek soup', description: 'A velvety soup of leeks and potatoes, with cream.', minutes: 40 },
  { title: 'Pea risotto', description: 'Arborio rice stirred with peas, mint and parmesan.', minutes: 35 },
  { title: 'Lamb tagine', description: 'Lamb shoulder with apricots, cumin and cinnamon.', minutes: 140 },
];

// A CMS's rich text: the description, the difficulty and the times are paragraphs of one block.
function page(r: Recipe): string {
  const description = r.description === null ? '' : `<p>${r.description}</p>`;
  return `<html><body><main><h1 class="title">${r.title}</h1><div class="rich-text">${description}
    <p><b>Difficulty:</b> medium</p><p><b>Prep:</b> 20 min | <b>Total:</b> ${r.minutes} min</p></div>
    </main></body></html>`;
}

describe('a field learned first where a missing block had moved its node', () => {
  test('starts again from the next page, and the later pages are answered without the model', async () => {
    const crawler = learnedCrawler(200, ['title', 'description', 'total_time']);
    const kinds: string[] = [];
    const free: Record<string, unknown>[] = [];
    for (const r of RECIPES) {
      const expected = { title: r.title, description: r.description, total_time: r.minutes };
      const out = await crawler.crawl('job-1', {
        family: 'rich-text',
        html: page(r),
        url: 'https://recipes.test/recipe/x',
        expected,
      });
      kinds.push(out.kind);
      free.push(out.free);
    }
    const last = RECIPES.at(-1) as Recipe;
    assert.equal(kinds.at(-1), 'extractor', `kinds ${kinds.join(' ')}`);
    assert.deepEqual(free.at(-1), {
      title: last.title,
      description: last.description,
      total_time: last.minutes,
    });
  });
});
