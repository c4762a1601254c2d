// The article corpus of bench:real: the article-extraction dataset of AndyTheFactory (Apache-2.0): 421 news
// pages with HTML, two from each of 212 sites, each with its expected title, authors and date (`articles.json`,
// `html/<id>.html`). Sites are split as the cleaner bench splits them (cleaners-pages.ts), so a site held out
// there is held out here: its tune sites are this bench's dev split.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'cheerio';
import { onPage, pageWords, sameArticleValue } from './article-compare.js';
import { siteName, splitOf } from './cleaners-pages.js';
import type { BenchPage, Corpus, PageFilter } from './corpus.js';
import { plainArticle } from './plain-reader.js';

interface Entry {
  title?: string;
  authors?: string | string[];
  date?: string;
  site: string;
  url: string;
}

/**
 * Expected values of tune-split pages that the stored page contradicts, reviewed by hand (held-out pages are
 * never read, so theirs stay as they are): the value the page states replaces the dataset's for every reader.
 */
const ERRATA: Record<string, { field: string; value: string; why: string }> = {
  '00da2dd6488597ac869ad3d50ee3ed5e': {
    field: 'author',
    value: 'Patrick Healy',
    why: 'the expected name is the photo credit; the byline reads "By Patrick Healy"',
  },
  '512ba0142cc3afc3ce33c0415b2b4e54': {
    field: 'author',
    value: 'Jami Ganz, Jager Weatherby',
    why: 'the byline names both ("By Jami Ganz | … and Jager Weatherby")',
  },
  '87a6a71562e11fee7d726d463ba5a699': {
    field: 'author',
    value: 'Brian Mahoney',
    why: 'the byline reads "By Brian Mahoney", the agency on the next line',
  },
  '7e90e98fa0cc4517edc19940e4186b13': {
    field: 'title',
    value: 'NASA laser-beams adorable cat video to Earth from 19 million miles away (video)',
    why: 'the headline ends in "(video)", which the dataset leaves out',
  },
};

/** An expected value worth judging: authors and titles not empty, a date that is one ("NaT" is none). */
function expectedOf(entry: Entry): Record<string, unknown> {
  const authors = [entry.authors ?? ''].flat().join(', ');
  const out: Record<string, unknown> = {};
  if (entry.title?.trim()) out.title = entry.title;
  if (authors.replace(/[\s,]/g, '')) out.author = authors;
  if (/^\d{4}-\d{2}-\d{2}$/.test(entry.date ?? '')) out.date = entry.date;
  return out;
}

function* pages(root: string, filter: PageFilter): Generator<BenchPage> {
  const entries = JSON.parse(readFileSync(join(root, 'articles.json'), 'utf8')) as Record<string, Entry>;
  for (const [id, entry] of Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))) {
    const path = join(root, 'html', `${id}.html`);
    if (!existsSync(path)) continue; // three pages of the dataset have no HTML
    const site = siteName(entry.site);
    if (filter.sites?.length && !filter.sites.includes(site)) continue;
    const split = splitOf(entry.site) === 'tune' ? 'dev' : 'holdout';
    if (filter.split && filter.split !== split) continue;
    const html = readFileSync(path, 'utf8');
    const $ = load(html);
    const meta = $('meta[content]')
      .toArray()
      .map((el) => $(el).attr('content'));
    const haystack = pageWords(`${$.root().text()} ${meta.join(' ')}`);
    const erratum = ERRATA[id];
    const stated = Object.entries({
      ...expectedOf(entry),
      ...(erratum && { [erratum.field]: erratum.value }),
    });
    const expected = Object.fromEntries(stated.filter(([f, v]) => onPage(haystack, f, v)));
    const unjudged = stated.filter(([f]) => !(f in expected)).map(([f]) => f);
    const corrected = erratum && [`${erratum.field}: ${erratum.why}`];
    yield { page: `${site}/${id}`, split, html, url: entry.url, expected, unjudged, corrected };
  }
}

export const articles: Corpus = {
  heading: 'News pages: the article-extraction dataset of AndyTheFactory (Apache-2.0)',
  archive: '/work/shared/data/article-pages.tar.xz',
  fields: ['title', 'author', 'date'],
  variants: {
    strings: { title: ['title', 'string'], author: ['author', 'string'], date: ['published_date', 'string'] },
    typed: { title: ['title', 'string'], author: ['authors', ['string']], date: ['date', 'date'] },
  },
  pages,
  plain: plainArticle,
  same: sameArticleValue,
};
