// Link discovery under hostile input: follow_pattern runs on RE2 (linear time, RegExp.test's search-anywhere
// semantics), a pattern RE2 cannot run is refused by the request schema, and a page yields a bounded number of
// links (next links first) however many it holds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  discoverLinks,
  discoverPageLinks,
  MAX_LINK_CHARS_PER_PAGE,
  MAX_LINKS_PER_PAGE,
  MAX_URL_LENGTH,
} from '../../shared/crawl/links.js';
import {
  compileUrlPattern,
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_PROGRAM_SIZE,
  urlPatternProblem,
} from '../../shared/crawl/url-pattern.js';
import { CrawlOptionsSchema } from '../../shared/schemas/crawl.js';
import { SiteCrawlOptionsInputSchema } from '../../shared/schemas/sites.js';

const S = 'https://shop.example';
const page = (hrefs: string[], extra = '') =>
  `<html><body>${extra}${hrefs.map((h) => `<a href="${h}">x</a>`).join('')}</body></html>`;
const EVIL = '^https?://[^/]+/(a+)+$';

describe('follow_pattern on RE2', () => {
  test('matches anywhere in the URL, as RegExp.test does; ^ and $ anchor the whole URL', () => {
    const cases: [string, string, boolean][] = [
      ['/product/\\d+', `${S}/product/12/reviews`, true],
      ['product', `${S}/shop/product`, true],
      ['^/product', `${S}/product/1`, false],
      ['^https://shop\\.example/product/\\d+$', `${S}/product/12`, true],
      ['^https://shop\\.example/product/\\d+$', `${S}/product/12/reviews`, false],
      ['\\?page=\\d+', `${S}/list?page=2`, true],
      ['(?i)PRODUCT', `${S}/product/1`, true],
    ];
    for (const [source, url, expected] of cases) {
      assert.equal(compileUrlPattern(source).test(url), expected, `${source} on ${url}`);
      assert.equal(
        new RegExp(source.replace('(?i)', ''), source.startsWith('(?i)') ? 'i' : '').test(url),
        expected,
      );
    }
  });

  test('a pattern that backtracks for hours in RegExp answers at once', () => {
    const url = `${S}/${'a'.repeat(40)}!`;
    const started = Date.now();
    assert.equal(compileUrlPattern(EVIL).test(url), false);
    assert.equal(compileUrlPattern(EVIL).test(`${S}/${'a'.repeat(40)}`), true);
    // RegExp takes 2^40 steps here; RE2 a few thousand.
    assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
  });

  test('backreferences, lookaround, over-long and over-complex patterns are refused with the reason', () => {
    assert.match(urlPatternProblem('(a)\\1') ?? '', /not an RE2 regular expression/);
    assert.match(urlPatternProblem('/p/(?=\\d)') ?? '', /not an RE2 regular expression/);
    assert.match(urlPatternProblem('(?<!x)/p') ?? '', /not an RE2 regular expression/);
    assert.match(urlPatternProblem('[') ?? '', /missing closing \]/);
    assert.match(
      urlPatternProblem('a'.repeat(MAX_PATTERN_LENGTH + 1)) ?? '',
      new RegExp(`longer than ${MAX_PATTERN_LENGTH}`),
    );
    // 16 characters, 9,002 instructions: ~1 s per 1 KB URL even on RE2.
    assert.match(
      urlPatternProblem('(a|aa|aaa){1000}') ?? '',
      /too complex: compiles to 9002 RE2 instructions/,
    );
    assert.equal(urlPatternProblem('[a-z]{400}'), null);
    assert.equal(urlPatternProblem(EVIL), null);
    assert.ok(MAX_PATTERN_PROGRAM_SIZE >= 400);
    assert.throws(() => compileUrlPattern('(a)\\1'), /follow_pattern is not an RE2 regular expression/);
  });

  test('the crawl and site schemas refuse what RE2 refuses, naming follow_pattern', () => {
    for (const follow_pattern of ['(a)\\1', '/p/(?=\\d)', '(a|aa|aaa){1000}']) {
      const crawl = CrawlOptionsSchema.safeParse({ follow_pattern });
      assert.equal(crawl.success, false, follow_pattern);
      assert.deepEqual(
        crawl.error?.issues.map((i) => i.path),
        [['follow_pattern']],
      );
      const site = SiteCrawlOptionsInputSchema.safeParse({ follow_pattern });
      assert.deepEqual(
        site.error?.issues.map((i) => i.path),
        [['follow_pattern']],
      );
    }
    assert.equal(CrawlOptionsSchema.safeParse({ follow_pattern: EVIL }).success, true);
  });
});

describe('discoverLinks', () => {
  test('the pathological pattern over a page of a-runs finishes at once, with RegExp.test semantics', () => {
    const hrefs = [`/${'a'.repeat(40)}!`, `/${'a'.repeat(41)}!`, `/${'a'.repeat(30)}`, '/b'];
    const started = Date.now();
    const links = discoverLinks(
      page(hrefs),
      `${S}/`,
      { follow_pattern: EVIL, same_domain_only: true },
      `${S}/`,
    );
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
    assert.deepEqual(links, [{ url: `${S}/${'a'.repeat(30)}`, kind: 'follow' }]);
  });

  test('a page yields at most MAX_LINKS_PER_PAGE distinct links, next links first, and says what it dropped', () => {
    const hrefs = Array.from({ length: 20_000 }, (_, i) => `/item/${i}`);
    const html = page([...hrefs, ...hrefs], '<a class="next" href="/list?page=2">next</a>');
    const rules = { follow_selector: 'a:not(.next)', next_selector: 'a.next', same_domain_only: true };
    const { links, dropped } = discoverPageLinks(html, `${S}/list`, rules, `${S}/`);
    assert.equal(links.length, MAX_LINKS_PER_PAGE);
    assert.deepEqual(links[0], { url: `${S}/list?page=2`, kind: 'next' });
    assert.equal(links[1]?.url, `${S}/item/0`);
    assert.equal(new Set(links.map((l) => l.url)).size, links.length);
    assert.equal(dropped, 40_000 - (MAX_LINKS_PER_PAGE - 1));
    // A page under the bound is read whole.
    const small = discoverPageLinks(page(hrefs.slice(0, 10)), `${S}/`, rules, `${S}/`);
    assert.deepEqual([small.links.length, small.dropped], [10, 0]);
  });

  test('long URLs: at most MAX_LINK_CHARS_PER_PAGE characters of URLs in all, none over MAX_URL_LENGTH', () => {
    const long = (i: number) => `/p/${String(i).padStart(6, '0')}/${'x'.repeat(900)}`;
    const hrefs = [`/${'y'.repeat(MAX_URL_LENGTH)}`, ...Array.from({ length: 2000 }, (_, i) => long(i))];
    const rules = { follow_pattern: '^https://shop\\.example/p/', same_domain_only: true };
    const { links, dropped } = discoverPageLinks(page(hrefs), `${S}/`, rules, `${S}/`);
    const chars = links.reduce((n, l) => n + l.url.length, 0);
    assert.ok(chars <= MAX_LINK_CHARS_PER_PAGE, `${chars}`);
    assert.ok(chars > MAX_LINK_CHARS_PER_PAGE - MAX_URL_LENGTH, `${chars}`);
    assert.ok(links.every((l) => l.url.length <= MAX_URL_LENGTH));
    assert.ok(links.length < MAX_LINKS_PER_PAGE && links.length > 200, `${links.length}`);
    assert.ok(dropped > 0);
    // The JSON the crawl activity returns for the page stays far under Temporal's 2 MB payload limit.
    assert.ok(JSON.stringify(links).length < 300 * 1024);
  });

  test("a costly (but accepted) pattern over many long links stops at the page's pattern budget", () => {
    const hrefs = Array.from({ length: 5000 }, (_, i) => `/${i}/${'a'.repeat(900)}`);
    const started = Date.now();
    const { links, dropped } = discoverPageLinks(
      page(hrefs),
      `${S}/`,
      { follow_pattern: '[a-z]{400}!', same_domain_only: true },
      `${S}/`,
    );
    const ms = Date.now() - started;
    assert.deepEqual(links, []);
    assert.ok(dropped > 4000, `${dropped}`);
    assert.ok(ms < 10_000, `${ms} ms`);
  });

  test('an unusable <base> is ignored, as browsers do', () => {
    const links = discoverLinks(
      page(['/a'], '<base href="http://[">'),
      `${S}/x/`,
      { follow_selector: 'a', same_domain_only: true },
      `${S}/`,
    );
    assert.deepEqual(links, [{ url: `${S}/a`, kind: 'follow' }]);
  });
});
