// Learned extractors on real recipe pages (the recipe-scrapers project's test data, MIT; unpacked into a
// temporary folder for the run and deleted after):
//   npm run bench:real:learned -- [--data PATH] [--site NAME]... [--split dev|holdout] [--variants N]
//                                 [--check-every N] [--limit N] [--templates-only] [--quiet]   (--data: the archive, or a folder
//                                 it was unpacked into)
// For each site with two or more pages:
// 1. its real pages go through a crawl's learned-extractor path (learned-crawl.ts, one job per site, an
//    oracle model): how many templates (extractor documents) the pages of one site get;
// 2. each real page is read with the candidates learned from the site's other pages (the learning
//    functions run directly, without the verification a crawl waits for): what those would answer;
// 3. the real pages and N variants of each (page-variants.ts: list lengths, comment blocks, a wrapper, a
//    field missing, a subtitle in the heading), shuffled, go through the crawl path: templates per site and
//    per real page's variants, and per field the values answered without the model — coverage and precision.
// Wrong values are listed for the dev split only (the held-out split's figures are read, never its pages).

import { parseArgs } from 'node:util';
import { load } from 'cheerio';
import { learnFromAnswer } from '../../activities/reading/learned/dom.js';
import { applyExtractor } from '../../activities/reading/learned/read.js';
import { learnableFields } from '../../activities/reading/learned/values.js';
import type { FieldCandidates } from '../../shared/learned-extractor.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { firstDifference, same } from './compare.js';
import { type CrawlPage, learnedCrawler, oracle } from './learned-crawl.js';
import {
  fieldTable,
  scoreFields,
  shuffled,
  type Tallies,
  type TemplateTally,
  talliesOf,
  templateTable,
} from './learned-report.js';
import { variantOf } from './page-variants.js';
import {
  FIELDS,
  RECIPE_DATA,
  type RecipePage,
  recipePages,
  TYPED_SCHEMA,
  urlOf,
  withRecipeData,
} from './recipe-pages.js';
import { SPLITS, type Split } from './split.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: RECIPE_DATA },
    site: { type: 'string', multiple: true },
    split: { type: 'string' },
    variants: { type: 'string', default: '8' },
    /** Templates of the real pages only (step 1): quick enough for every site. */
    'templates-only': { type: 'boolean', default: false },
    /** The first N sites (of two or more pages) only. */
    limit: { type: 'string' },
    'check-every': { type: 'string', default: '200' },
    quiet: { type: 'boolean', default: false },
  },
});
const VARIANTS = Number(values.variants);
const LEARNABLE = learnableFields(normalizeSchema(TYPED_SCHEMA).fields) ?? [];

interface Wrong {
  run: string;
  page: string;
  field: string;
  got: unknown;
  expected: unknown;
  changes?: string[];
}

const tallies = (): Tallies => talliesOf(FIELDS);
const score = (
  t: Tallies,
  free: Record<string, unknown>,
  expected: Record<string, unknown>,
  wrong: (w: Omit<Wrong, 'run' | 'page'>) => void,
) => scoreFields(t, FIELDS, free, expected, same, wrong);

interface SplitResult {
  real: TemplateTally;
  variants: TemplateTally;
  unverified: Tallies;
  crawled: Tallies;
  pages: { pages: number; modelCalls: number; checks: number };
}

const templateTally = (): TemplateTally => ({
  sites: 0,
  pages: 0,
  shapes: 0,
  templates: 0,
  oneTemplate: 0,
  most: 0,
  families: 0,
  splitFamilies: 0,
});

const freshSplit = (): SplitResult => ({
  real: templateTally(),
  variants: templateTally(),
  unverified: tallies(),
  crawled: tallies(),
  pages: { pages: 0, modelCalls: 0, checks: 0 },
});

function countTemplates(
  t: TemplateTally,
  pages: number,
  shapes: Set<string>,
  documents: number,
  families: Map<string, Set<string>>,
) {
  t.sites++;
  t.pages += pages;
  t.shapes += shapes.size;
  t.templates += documents;
  if (documents === shapes.size) t.oneTemplate++;
  t.most = Math.max(t.most, documents);
  t.families += families.size;
  for (const templates of families.values()) if (templates.size > 1) t.splitFamilies++;
}

async function runSite(
  site: string,
  real: RecipePage[],
  result: SplitResult,
  wrong: Wrong[],
  checkEvery: number,
) {
  const note = (run: string, page: string, changes?: string[]) => (w: Omit<Wrong, 'run' | 'page'>) =>
    wrong.push({ run, page, ...w, ...(changes ? { changes } : {}) });
  // 1. The real pages, crawled.
  const realCrawl = learnedCrawler(checkEvery);
  const realShapes = new Set<string>();
  for (const p of real) {
    const out = await realCrawl.crawl(site, {
      family: p.page,
      html: p.html,
      url: urlOf(p.expected),
      expected: p.expected,
    });
    realShapes.add(out.urlShape);
  }
  countTemplates(result.real, real.length, realShapes, await realCrawl.documents(site), new Map());
  if (values['templates-only']) return { realReads: realCrawl.reads, reads: realCrawl.reads };
  // 2. Each real page read with what the site's other pages teach.
  const parsed = real.map((p) => ({ p, page: { $: load(p.html), url: urlOf(p.expected) } }));
  for (const { p, page } of parsed) {
    let known: FieldCandidates | null = null;
    for (const other of parsed)
      if (other.p !== p) known = learnFromAnswer(other.page, LEARNABLE, oracle(other.p.expected), known);
    if (!known) continue;
    const read = applyExtractor(page, LEARNABLE, known);
    score(result.unverified, read.data, p.expected, note('unverified', p.page));
  }
  // 3. The real pages and their variants, crawled in a shuffled order.
  const pages: (CrawlPage & { page: string; changes: string[] })[] = [];
  for (const p of real) {
    const url = urlOf(p.expected);
    pages.push({ family: p.page, page: p.page, html: p.html, url, expected: p.expected, changes: [] });
    for (let n = 1; n <= VARIANTS; n++) {
      const v = variantOf(p.html, p.expected, n, p.page);
      pages.push({
        family: p.page,
        page: `${p.page}~${n}`,
        html: v.html,
        url,
        expected: v.expected,
        changes: v.changes,
      });
    }
  }
  const crawler = learnedCrawler(checkEvery);
  const shapes = new Set<string>();
  const families = new Map<string, Set<string>>();
  for (const page of shuffled(pages, site)) {
    const out = await crawler.crawl(site, page);
    shapes.add(out.urlShape);
    const family = families.get(page.family) ?? new Set<string>();
    families.set(page.family, family);
    if (out.template) family.add(`${out.urlShape} ${out.template}`);
    result.pages.pages++;
    if (out.kind !== 'extractor') result.pages.modelCalls++;
    if (out.kind === 'check') result.pages.checks++;
    score(result.crawled, out.free, page.expected, note('crawled', page.page, page.changes));
  }
  countTemplates(result.variants, pages.length, shapes, await crawler.documents(site), families);
  return { realReads: realCrawl.reads, reads: crawler.reads };
}

async function main() {
  const checkEvery = Number(values['check-every']);
  await withRecipeData(values.data, async (dir) => {
    const bySite = new Map<string, RecipePage[]>();
    for (const p of recipePages(dir, { sites: values.site, split: values.split })) {
      const list = bySite.get(p.site) ?? [];
      list.push(p);
      bySite.set(p.site, list);
    }
    const results = { dev: freshSplit(), holdout: freshSplit() };
    const wrong: Wrong[] = [];
    const reads = { keyed: 0, scans: [] as string[] };
    let left = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
    for (const [site, real] of bySite) {
      if (real.length < 2 || left-- <= 0) continue;
      const split = real[0]?.split as Split;
      const siteWrong: Wrong[] = [];
      const started = Date.now();
      const r = await runSite(site, real, results[split], siteWrong, checkEvery);
      process.stderr.write(
        `${site}: ${real.length} pages, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
      if (split === 'dev') wrong.push(...siteWrong);
      for (const m of new Set([r.realReads, r.reads])) {
        reads.keyed += m.keyed;
        reads.scans.push(...m.scans);
      }
    }
    print(results, wrong, reads);
  });
}

function print(
  results: Record<Split, SplitResult>,
  wrong: Wrong[],
  reads: { keyed: number; scans: string[] },
) {
  console.log('Learned extractors on real recipe pages: the recipe-scrapers test data (MIT)\n');
  for (const split of SPLITS) {
    const r = results[split];
    if (r.real.sites === 0) continue;
    const variants = values['templates-only'] ? 'real pages only' : `${VARIANTS} variants per real page`;
    console.log(`${split} split: ${r.real.sites} sites with 2+ pages, ${variants}\n`);
    console.log(`${templateTable(r.real, r.variants)}\n`);
    if (values['templates-only']) continue;
    console.log(
      `${fieldTable(FIELDS, { "read with the other pages' candidates (unverified)": r.unverified, 'crawled, real pages and variants': r.crawled })}`,
    );
    const p = r.pages;
    console.log(
      `crawled: ${p.pages} pages, ${p.modelCalls} model calls (${(p.modelCalls / p.pages).toFixed(3)} per page, ${p.checks} of them checks)\n`,
    );
  }
  console.log(`store reads and writes by _id: ${reads.keyed}; by any other filter: ${reads.scans.length}`);
  for (const s of reads.scans.slice(0, 5)) console.log(`  ${s}`);
  const wrongOf = (run: string) => wrong.filter((w) => w.run === run);
  console.log(
    `dev split: ${wrongOf('unverified').length} wrong unverified values, ${wrongOf('crawled').length} wrong values answered without the model in the crawl`,
  );
  if (values.quiet) return;
  const show = (v: unknown) => JSON.stringify(v).slice(0, 200);
  for (const w of wrong) {
    console.log(`- ${w.run} ${w.page} ${w.field}${w.changes?.length ? ` [${w.changes.join(' ')}]` : ''}`);
    console.log(`    got      ${show(w.got)}\n    expected ${show(w.expected)}`);
    const differs = firstDifference(w.got, w.expected);
    if (differs) console.log(`    differs  ${differs.slice(0, 300)}`);
  }
}

await main();
