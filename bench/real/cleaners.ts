// Cleaner bench on real article pages never tuned on (bench/real/cleaners-pages.ts: 424 news pages from 212
// sites, AndyTheFactory's article-extraction dataset, Apache-2.0): each cleaner chain and trafilatura on the
// same pages, body P / R / F1 averaged per site, tokens sent as a share of the raw page's, and how often the
// output kept what should be left out; the tune and held-out splits apart.
//   npm run bench:real:cleaners -- [--data PATH] [--split tune|held-out|all] [--no-trafilatura] [--worst N]
// --worst N lists each chain's N worst tune pages (by F1) with their leaked lines; never the held-out ones.
import { parseArgs } from 'node:util';
import type { CleanerStep } from '../../activities/reading/cleaners/index.js';
import { chainOutputFormat, defaultChainFor } from '../../shared/cleaners.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { runBoth } from '../cleaners/run.js';
import { htmlText, modelTokens } from '../cleaners/score.js';
import { type ArticlePage, type Split, withArticlePages } from './cleaners-pages.js';
import { type PageScore, type Summary, scorePage, summarize } from './cleaners-score.js';
import { trafilaturaTexts } from './trafilatura.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '/work/shared/data/article-pages.tar.xz' },
    split: { type: 'string', default: 'all' },
    'no-trafilatura': { type: 'boolean', default: false },
    worst: { type: 'string', default: '0' },
    chain: { type: 'string', multiple: true },
  },
});

/** The chain an extract job runs for a schema of strings: no URLs wanted. */
const DEFAULT_CHAIN = defaultChainFor(normalizeSchema({ title: 'string', body: 'string' }));
const CHAINS: Record<string, CleanerStep[]> = {
  'readability,text': [{ name: 'readability' }, { name: 'text' }],
  'readability,markdown': [{ name: 'readability' }, { name: 'markdown', options: DEFAULT_CHAIN[0]!.options }],
  'default (markdown)': DEFAULT_CHAIN,
};
const TRAFILATURA = 'trafilatura 2.3.1';

function runChainOn(page: ArticlePage, chain: CleanerStep[], raw: number): PageScore {
  const { sent, body } = runBoth(page.html, chain, page.url);
  const asText = (out: string) => (chainOutputFormat(chain) === 'html' ? htmlText(out) : out);
  return scorePage(page, asText(body), asText(sent), raw);
}

const fixed = (value: number) => value.toFixed(3);
const pct = (value: number) => `${(100 * value).toFixed(1)}%`;

function printTable(rows: { name: string; split: Split | 'all'; summary: Summary }[]) {
  console.log(
    '| cleaner | split | sites / pages | F1 mean (median) | P | R | tokens % raw, median (mean) | kept what should go |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const { name, split, summary: s } of rows)
    console.log(
      `| ${name} | ${split} | ${s.sites} / ${s.pages} | ${fixed(s.f1.mean)} (${fixed(s.f1.median)}) | ` +
        `${fixed(s.precision)} | ${fixed(s.recall)} | ${pct(s.share.median)} (${pct(s.share.mean)}) | ${pct(s.leakRate)} |`,
    );
}

function printWorst(name: string, scored: { page: ArticlePage; score: PageScore }[], count: number) {
  console.log(`\nworst tune pages: ${name}`);
  const tune = scored.filter(({ page }) => page.split === 'tune');
  for (const { page, score } of [...tune].sort((a, b) => a.score.f1 - b.score.f1).slice(0, count)) {
    console.log(
      `  ${page.id} ${page.site}: F1 ${fixed(score.f1)} P ${fixed(score.precision)} R ${fixed(score.recall)}`,
    );
    for (const line of score.leaked.slice(0, 3)) console.log(`      kept: ${line.trim().slice(0, 120)}`);
  }
}

await withArticlePages(values.data, async (all) => {
  const pages = all.filter((page) => values.split === 'all' || page.split === values.split);
  const raw = new Map(pages.map((page) => [page.id, modelTokens(page.html)]));
  const results = new Map<string, { page: ArticlePage; score: PageScore }[]>();
  const names = values.chain?.length ? values.chain : Object.keys(CHAINS);
  for (const name of names) {
    const chain = CHAINS[name];
    if (!chain) throw new Error(`unknown chain "${name}"; known: ${Object.keys(CHAINS).join(', ')}`);
    results.set(
      name,
      pages.map((page) => ({ page, score: runChainOn(page, chain, raw.get(page.id)!) })),
    );
  }
  const texts = values['no-trafilatura'] ? null : trafilaturaTexts(pages);
  if (texts)
    results.set(
      TRAFILATURA,
      pages.map((page) => {
        const text = texts.get(page.id) ?? '';
        return { page, score: scorePage(page, text, text, raw.get(page.id)!) };
      }),
    );
  console.log(
    `${pages.length} real news pages from ${new Set(pages.map((p) => p.site)).size} sites ` +
      '(article-extraction dataset of AndyTheFactory, Apache-2.0); figures averaged per site\n',
  );
  const rows = [...results].flatMap(([name, scored]) =>
    (['tune', 'held-out', 'all'] as const).flatMap((split) => {
      const ofSplit = scored.filter(({ page }) => split === 'all' || page.split === split);
      return ofSplit.length === 0 ? [] : [{ name, split, summary: summarize(ofSplit.map((s) => s.score)) }];
    }),
  );
  printTable(rows.sort((a, b) => a.split.localeCompare(b.split)));
  const worst = Number(values.worst);
  if (worst > 0) for (const [name, scored] of results) printWorst(name, scored, worst);
});
