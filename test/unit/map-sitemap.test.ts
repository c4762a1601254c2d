// The pure parts of POST /map: reading sitemaps (XML with or without prefixes, CDATA and entities, the text
// form, bounds), decompressing them (twice-gzipped, bombs, other encodings), reading a page's links, and the
// URL list's rules (normalising, same site, subdomains, search, query, limit and dedupe).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { pageLinks } from '../../activities/crawl/map/page-links.js';
import { readSitemap } from '../../activities/crawl/map/sitemap-xml.js';
import { decompressed } from '../../activities/crawl/map/sitemaps.js';
import { timestampOf, UrlCollector } from '../../activities/crawl/map/url-collector.js';
import { CategorizedError } from '../../shared/errors.js';
import { SITEMAP_MAX_BYTES } from '../../shared/schemas/map.js';

const later = () => Date.now() + 10_000;

describe('readSitemap', () => {
  test('urlset entries with lastmod; prefixed tags, CDATA and entities; other elements ignored', async () => {
    const xml = `<?xml version="1.0"?>
      <sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="x">
        <sm:url><sm:loc> https://a.test/one </sm:loc><sm:lastmod>2026-11-20</sm:lastmod>
          <image:image><image:loc>https://cdn.test/pic.png</image:loc></image:image></sm:url>
        <sm:url><sm:loc><![CDATA[https://a.test/two?x=1&y=2]]></sm:loc></sm:url>
        <sm:url><sm:loc>https://a.test/three?x=1&amp;y=2</sm:loc></sm:url>
        <sm:url><sm:priority>0.5</sm:priority></sm:url>
      </sm:urlset>`;
    const r = await readSitemap(xml, { deadline: later(), maxEntries: 100 });
    assert.deepEqual(r.pages, [
      { loc: 'https://a.test/one', lastmod: '2026-11-20' },
      // The image's <loc> inside the first <url> is not the page's.
      { loc: 'https://a.test/two?x=1&y=2' },
      { loc: 'https://a.test/three?x=1&y=2' },
    ]);
    assert.deepEqual(r.sitemaps, []);
    assert.equal(r.stopped, null);
  });

  test('a sitemap index lists sitemaps; the text form lists one URL a line', async () => {
    const index = await readSitemap(
      '<sitemapindex><sitemap><loc>https://a.test/s1.xml.gz</loc><lastmod>2026-01-01</lastmod></sitemap></sitemapindex>',
      { deadline: later(), maxEntries: 100 },
    );
    assert.deepEqual(index.sitemaps, [{ loc: 'https://a.test/s1.xml.gz', lastmod: '2026-01-01' }]);
    const text = await readSitemap('https://a.test/a\r\n\nnot a url\nhttp://a.test/b\n', {
      deadline: later(),
      maxEntries: 100,
    });
    assert.deepEqual(
      text.pages.map((p) => p.loc),
      ['https://a.test/a', 'http://a.test/b'],
    );
  });

  test('stops at the entry bound and at the deadline', async () => {
    const many = `<urlset>${'<url><loc>https://a.test/p</loc></url>'.repeat(5000)}</urlset>`;
    const bounded = await readSitemap(many, { deadline: later(), maxEntries: 10 });
    assert.equal(bounded.stopped, 'entries');
    assert.equal(bounded.pages.length, 10);
    const late = await readSitemap(many, { deadline: Date.now() - 1, maxEntries: 100_000 });
    assert.equal(late.stopped, 'deadline');
  });
});

describe('decompressed', () => {
  const xml = Buffer.from('<urlset><url><loc>https://a.test/</loc></url></urlset>');

  test('plain, gzip by content (.xml.gz), and gzip sent with gzip content-encoding too', async () => {
    assert.deepEqual(await decompressed({ headers: {}, body: xml }), xml);
    assert.deepEqual(await decompressed({ headers: {}, body: gzipSync(xml) }), xml);
    const twice = gzipSync(gzipSync(xml));
    assert.deepEqual(await decompressed({ headers: { 'content-encoding': 'gzip' }, body: twice }), xml);
  });

  test('a gzip bomb stops at the bound as content_too_large; br and corrupt gzip are refused', async () => {
    const bomb = gzipSync(Buffer.alloc(SITEMAP_MAX_BYTES + 1, 'a'));
    await assert.rejects(
      decompressed({ headers: {}, body: bomb }),
      (err) => err instanceof CategorizedError && err.category === 'content_too_large',
    );
    await assert.rejects(
      decompressed({ headers: { 'content-encoding': 'br' }, body: xml }),
      (err) => err instanceof CategorizedError && err.category === 'unsupported_content',
    );
    await assert.rejects(
      decompressed({ headers: {}, body: gzipSync(xml).subarray(0, 12) }),
      (err) => err instanceof CategorizedError && err.category === 'unsupported_content',
    );
  });
});

describe('pageLinks', () => {
  test('a and area hrefs against <base>, normalised as crawls do, distinct; other schemes dropped', async () => {
    const html = `<html><head><base href="/docs/"></head><body>
      <a href="intro#top">Intro</a><A HREF="intro">again</A><area href="/map?b=2&a=1&utm_source=x">
      <a href="mailto:x@a.test">mail</a><a href="javascript:void(0)">js</a><a>no href</a></body></html>`;
    assert.deepEqual(await pageLinks(html, 'https://a.test/page', later()), [
      'https://a.test/docs/intro',
      'https://a.test/map?a=1&b=2',
    ]);
  });
});

describe('UrlCollector', () => {
  const collector = (opts: Partial<ConstructorParameters<typeof UrlCollector>[0]> = {}) =>
    new UrlCollector({
      seedUrl: 'https://www.shop.test/',
      limit: 100,
      includeSubdomains: false,
      ignoreQuery: false,
      allowed: async () => true,
      ...opts,
    });

  test('same site with or without www; subdomains only when asked; never another site', async () => {
    const urls = [
      'https://shop.test/a',
      'https://www.shop.test/b',
      'https://blog.shop.test/c',
      'https://other.test/',
    ];
    const plain = collector();
    for (const u of urls) await plain.add(u, 'links');
    assert.deepEqual(
      plain.urls.map((u) => u.url),
      ['https://shop.test/a', 'https://www.shop.test/b'],
    );
    const wide = collector({ includeSubdomains: true });
    for (const u of [...urls, 'https://notshop.test/x']) await wide.add(u, 'links');
    assert.deepEqual(
      wide.urls.map((u) => u.url),
      ['https://shop.test/a', 'https://www.shop.test/b', 'https://blog.shop.test/c'],
    );
  });

  test('search words, ignore_query, dedupe after normalising, robots, limit and lastmod', async () => {
    const c = collector({
      search: 'Blog  2026',
      ignoreQuery: true,
      limit: 2,
      allowed: async (url) => !url.includes('/private'),
    });
    await c.add('https://shop.test/blog/2026/a?page=2#x', 'sitemap', '2026-11-21T10:00:00+02:00');
    await c.add('https://shop.test/blog/2026/a?page=3', 'links');
    await c.add('https://shop.test/blog/2025/b', 'sitemap');
    await c.add('https://shop.test/private/blog/2026', 'sitemap');
    await c.add('https://shop.test/BLOG/2026/c', 'sitemap', 'yesterday');
    assert.equal(c.truncated, false);
    await c.add('https://shop.test/blog/2026/d', 'sitemap');
    assert.deepEqual(c.urls, [
      { url: 'https://shop.test/blog/2026/a', source: 'sitemap', lastmod: '2026-11-21T08:00:00.000Z' },
      { url: 'https://shop.test/BLOG/2026/c', source: 'sitemap' },
    ]);
    assert.equal(c.truncated, true);
  });

  test('lastmod: W3C dates become RFC 3339 UTC; anything else is dropped', () => {
    assert.equal(timestampOf('2026-11-20'), '2026-11-20T00:00:00.000Z');
    assert.equal(timestampOf('2026-11-20T10:00Z'), '2026-11-20T10:00:00.000Z');
    assert.equal(timestampOf('20 Nov 2026'), null);
    assert.equal(timestampOf(`2026-11-20${'x'.repeat(100)}`), null);
  });
});
