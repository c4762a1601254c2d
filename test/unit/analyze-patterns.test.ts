// The pure parts of analyze that turn structure into answers: follow patterns from links (every sample
// matches its pattern), link sampling for depth 1, the fetch-mode recommendation, the suggested schema (and its
// round trip through the schema parser /extract uses) and the assembled pattern descriptions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { chosenPageType, followPatterns } from '../../activities/analyze/analysis-result.js';
import { pickSamples } from '../../activities/analyze/classify-links.js';
import { recommendFetchMode } from '../../activities/analyze/fetch-mode.js';
import {
  collectLinks,
  groupPatterns,
  MAX_ANALYZED_LINKS,
  type PageLink,
} from '../../activities/reading/page-structure/link-patterns.js';
import { modelFields, suggestSchema } from '../../activities/reading/page-structure/suggested-schema.js';
import { compileUrlPattern, urlPatternProblem } from '../../shared/crawl/url-pattern.js';
import { normalizeSchema, validateSchemaYaml } from '../../shared/schema-input.js';
import { CrawlOptionsSchema } from '../../shared/schemas/crawl.js';

const S = 'https://shop.example';
const link = (path: string, role: PageLink['role'] = 'content'): PageLink => ({ url: `${S}${path}`, role });

describe('follow patterns', () => {
  test('numeric parts become \\d+, varying parts [^/?&#]+, constant parts stay literal; samples match', () => {
    const links = [
      ...[1, 22, 333].map((i) => link(`/product/${i}`, 'item')),
      ...['blue-kettle', 'red-kettle', 'tea-pot'].map((s) => link(`/shop/kitchen/${s}`)),
      link('/list?page=2&sort=price', 'pagination'),
      link('/list?page=3&sort=price', 'pagination'),
      link('/about', 'navigation'),
    ];
    const drafts = groupPatterns(links);
    assert.deepEqual(
      drafts.map((d) => [d.pattern, d.role, d.count]),
      [
        ['^https:\\/\\/shop\\.example\\/product\\/\\d+$', 'item', 3],
        ['^https:\\/\\/shop\\.example\\/list\\?page=\\d+&sort=price$', 'pagination', 2],
        ['^https:\\/\\/shop\\.example\\/shop\\/kitchen\\/[^/?&#]+$', 'content', 3],
      ],
    );
    for (const d of drafts) {
      assert.ok(d.sample_urls.length > 0);
      for (const url of d.sample_urls) assert.match(url, new RegExp(d.pattern));
    }
    assert.doesNotMatch(`${S}/product/12/reviews`, new RegExp(drafts[0]!.pattern));
    assert.match(drafts[0]!.description, /detail pages/);
    assert.match(drafts[1]!.description, /pagination/);
  });

  test('every pattern is a crawl follow_pattern as is: accepted by the crawl schema, its samples match on RE2', () => {
    const odd = ['/a(b)/c$d', "/x*y+z/~!'", '/%E2%82%AC/[1]', '/p?q=a|b&r={x}', '/p?q=c.d&r=^y'];
    const long = `/${'segment-'.repeat(120)}end`;
    const links = [
      ...odd.flatMap((p) => [link(p, 'item'), link(`${p}x`, 'item')]),
      link(long, 'item'),
      { url: 'http://[::1]:8080/v/1', role: 'item' as const },
      { url: 'http://[::1]:8080/v/2', role: 'item' as const },
    ];
    const drafts = groupPatterns(links, 100);
    assert.ok(drafts.length >= 4, drafts.map((d) => d.pattern).join('\n'));
    for (const d of drafts) {
      assert.equal(urlPatternProblem(d.pattern), null, d.pattern);
      assert.equal(CrawlOptionsSchema.safeParse({ follow_pattern: d.pattern }).success, true, d.pattern);
      for (const url of d.sample_urls)
        assert.ok(compileUrlPattern(d.pattern).test(url), `${d.pattern} ${url}`);
    }
    // A shape too long to spell out within the crawl's pattern bounds is generalised, not dropped.
    const longDraft = drafts.find((d) => d.sample_urls.includes(`${S}${long}`));
    assert.equal(longDraft?.pattern, '^https:\\/\\/shop\\.example\\/[^/?&#]+$');
  });

  test('grouping is linear and bounded: 50,000 links are grouped in moments, the first few thousand count', () => {
    const many = Array.from({ length: 50_000 }, (_, i) => link(`/product/${i}`, 'item'));
    const started = Date.now();
    const [draft] = groupPatterns(many);
    assert.equal(draft?.count, MAX_ANALYZED_LINKS);
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
    const $ = load(many.map((l, i) => `<a href="${new URL(l.url).pathname}">${i}</a>`).join(''));
    assert.equal(collectLinks($, `${S}/`, null, new Set()).length, MAX_ANALYZED_LINKS);
  });

  test('links are collected once, absolute and same-site, with their strongest role', () => {
    const $ =
      load(`<base href="/dir/"><nav><a href="/a">A</a></nav><div class="i"><a href="x#frag">X</a></div>
      <a href="https://elsewhere.example/y">Y</a><a href="mailto:a@b.c">M</a><a href="../a">A again</a>`);
    // /a is in the menu and in the content: a content link.
    assert.deepEqual(collectLinks($, `${S}/dir/page`, 'div.i', new Set()), [
      { url: `${S}/a`, role: 'content' },
      { url: `${S}/dir/x`, role: 'item' },
    ]);
  });

  test('depth 1 samples the first links of the top non-pagination patterns, a few in all', () => {
    const drafts = groupPatterns([
      ...[1, 2, 3].map((i) => link(`/p/${i}`, 'item')),
      ...[2, 3].map((i) => link(`/l?page=${i}`, 'pagination')),
      ...['x', 'y'].map((c) => link(`/c/${c}`)),
    ]);
    assert.deepEqual(
      pickSamples(drafts).map((s) => s.url),
      [`${S}/p/1`, `${S}/c/x`, `${S}/p/2`, `${S}/c/y`],
    );
  });

  test('sampled pages name what a pattern leads to', () => {
    const [draft] = groupPatterns([1, 2].map((i) => link(`/p/${i}`, 'item')));
    const pattern = draft!.pattern;
    const [described] = followPatterns(
      [draft!],
      [
        { pattern, url: `${S}/p/1`, pageType: 'product', kind: 'detail' },
        { pattern, url: `${S}/p/2`, pageType: 'product', kind: 'detail' },
      ],
    );
    assert.match(described!.description, /leads to detail pages \(2 of 2 sampled, page type product\)/);
  });
});

describe('fetch mode', () => {
  const page = (textLength: number, items = 0, scriptNeed: string | null = null) => ({
    textLength,
    items,
    scriptNeed,
  });
  test('dynamic only when the rendered page shows materially more', () => {
    assert.equal(recommendFetchMode(page(2000, 10), page(2100, 10)).mode, 'static');
    assert.equal(recommendFetchMode(page(100), page(2000, 6)).mode, 'dynamic');
    assert.equal(recommendFetchMode(page(3000, 3), page(3300, 12)).mode, 'dynamic');
    assert.equal(recommendFetchMode(page(50, 0, 'app_shell'), null).mode, 'dynamic');
    assert.equal(recommendFetchMode(page(150, 0, 'script_shell'), null).mode, 'static');
  });
});

describe('suggested schema', () => {
  const structure = [{ name: 'title', type: 'string' as const, description: 'the h1' }];

  test("the model's fields, cleaned, as YAML that the extract parser reads as structured", () => {
    const s = suggestSchema(
      {
        schema_name: 'Kettle Product',
        fields: [
          { name: 'Product Name', type: 'text', description: 'name' },
          { name: 'price', type: 'float' },
          { name: 'specs', type: 'object' },
          { name: 'price', type: 'string' },
          'junk',
        ],
      },
      structure,
      'product',
    );
    assert.equal(s.source, 'model');
    const parsed = normalizeSchema(s.yaml);
    assert.equal(parsed.input_format, 'structured');
    assert.equal(parsed.name, 'kettle_product');
    assert.deepEqual(
      parsed.fields.map((f) => [f.name, f.type]),
      [
        ['product_name', 'string'],
        ['price', 'number'],
        ['specs', 'string'],
      ],
    );
  });

  test('a listing schema is a list of items; unusable model fields fall back to the structure', () => {
    const s = suggestSchema({ fields: [{ type: 'string' }] }, structure, 'listing');
    assert.equal(s.source, 'structure');
    const parsed = validateSchemaYaml(s.yaml);
    assert.equal(parsed.fields[0]?.name, 'items');
    assert.equal(parsed.fields[0]?.items?.properties?.[0]?.name, 'title');
    assert.equal(suggestSchema({}, [], 'other').yaml.includes('name: title'), true);
    assert.deepEqual(modelFields(null), []);
  });

  test("the model's page type counts only when it is one of the enum", () => {
    assert.equal(chosenPageType('Search results', 'listing'), 'search_results');
    assert.equal(chosenPageType('blog', 'article'), 'article');
    assert.equal(chosenPageType(null, 'other'), 'other');
  });
});
