// Cleaner bench: each cleaner chain over real article pages and generated listing pages, scored on body text
// (token F1 / precision / recall against the expected content) and on size (model tokens of the output as
// a share of the raw HTML's). Fetch the corpus first: bench/cleaners/fetch-corpus.sh.
//   npm run bench:cleaners -- [--chain NAME]... [--set readability|newspaper4k|trafilatura|realworld|goose|listings]...
//     [--split dev|holdout|all] [--worst N]
// --worst N also lists each chain's N worst pages per set and split (by F1; by snippets missed and leaked) and
// the N that send the largest share of their raw tokens.
// trafilatura's pages (evaluation and real-world) come with snippets instead of whole texts: their F1, precision
// and recall are pooled over the set's snippets (both columns), as trafilatura's own evaluation counts them.
// "articles" pools Readability's and newspaper4k's pages; GoOse's (expected text = GoOse's output) stand alone.
// Body text is scored without the title and byline the readability cleaner puts first (its <header>,
// PAGE_HEADER): the expected texts hold the body only. "F1 as sent" scores the whole output, header included.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CleanerStep } from '../activities/reading/cleaners/index.js';
import { chainOutputFormat } from '../shared/cleaners.js';
import { type BenchPage, loadCorpus } from './cleaners/corpus.js';
import { runBoth } from './cleaners/run.js';
import {
  htmlText,
  mean,
  median,
  modelTokens,
  overlap,
  type SnippetCounts,
  snippetCounts,
} from './cleaners/score.js';

const WHOLE_PAGE = { drop_boilerplate: false };
const NO_URLS = { include_links: false, include_images: false };

const CHAINS: Record<string, CleanerStep[]> = {
  'readability,text': [{ name: 'readability' }, { name: 'text' }],
  readability: [{ name: 'readability' }],
  'readability,markdown': [{ name: 'readability' }, { name: 'markdown' }],
  'markdown (default)': [{ name: 'markdown' }],
  'markdown no urls': [{ name: 'markdown', options: NO_URLS }],
  text: [{ name: 'text' }],
  // The cleaners as they were before drop_boilerplate: the whole page.
  'markdown whole page': [{ name: 'markdown', options: WHOLE_PAGE }],
  'markdown whole page no urls': [{ name: 'markdown', options: { ...WHOLE_PAGE, ...NO_URLS } }],
  'text whole page': [{ name: 'text', options: WHOLE_PAGE }],
};

const { values } = parseArgs({
  options: {
    chain: { type: 'string', multiple: true },
    set: { type: 'string', multiple: true },
    split: { type: 'string', default: 'all' },
    worst: { type: 'string', default: '0' },
  },
});
const chosen = values.chain?.length ? values.chain : Object.keys(CHAINS);
const BASE_URL = 'https://www.example.com/articles/page.html';

interface Row {
  f1: number;
  precision: number;
  recall: number;
  /** F1 of the output as sent, header included. */
  sentF1: number;
  share: number;
  tokens: number;
  snippets?: SnippetCounts;
  sentSnippets?: SnippetCounts;
}

function score(page: BenchPage, rawTokens: number, chain: CleanerStep[]): Row {
  const { sent: output, body: bodyOutput } = runBoth(page.html, chain, BASE_URL);
  const asText = (out: string) => (chainOutputFormat(chain) === 'html' ? htmlText(out) : out);
  const body = asText(bodyOutput);
  const tokens = modelTokens(output);
  const sizes = { share: tokens / rawTokens, tokens };
  if (page.snippets) {
    const snippets = snippetCounts(body, page.snippets);
    const sentSnippets = snippetCounts(asText(output), page.snippets);
    return { f1: 0, precision: 0, recall: 0, sentF1: 0, ...sizes, snippets, sentSnippets };
  }
  return { ...overlap(body, page.expected), sentF1: overlap(asText(output), page.expected).f1, ...sizes };
}

const ARTICLE_SETS = new Set<string>(['readability', 'newspaper4k']);

const pct = (value: number) => `${(100 * value).toFixed(1)}%`;
const fixed = (value: number) => value.toFixed(3);
/** Snippet sets are scored as trafilatura scores them: counts pooled over the pages, not per page. */
function pooled(rows: Row[], which: 'snippets' | 'sentSnippets') {
  const sum = (key: keyof SnippetCounts) => rows.reduce((total, row) => total + (row[which]?.[key] ?? 0), 0);
  const precision = sum('found') / (sum('found') + sum('leaked'));
  const recall = sum('found') / (sum('found') + sum('missed'));
  const f1 = (2 * precision * recall) / (precision + recall);
  return {
    f1: { median: f1, mean: f1 },
    precision: { median: precision, mean: precision },
    recall: { median: recall, mean: recall },
  };
}

function summary(rows: Row[]) {
  const of = (key: 'f1' | 'precision' | 'recall' | 'sentF1' | 'share' | 'tokens') =>
    rows.map((row) => row[key]);
  const both = (key: 'f1' | 'precision' | 'recall' | 'sentF1') => ({
    median: median(of(key)),
    mean: mean(of(key)),
  });
  const scores = rows[0]?.snippets
    ? { ...pooled(rows, 'snippets'), sentF1: pooled(rows, 'sentSnippets').f1 }
    : { f1: both('f1'), precision: both('precision'), recall: both('recall'), sentF1: both('sentF1') };
  return {
    pages: rows.length,
    ...scores,
    share: { median: median(of('share')), mean: mean(of('share')) },
    tokens: { median: median(of('tokens')), mean: mean(of('tokens')) },
  };
}

const pages = loadCorpus().filter(
  (page) =>
    (values.split === 'all' || (values.split === 'holdout') === page.holdout) &&
    (!values.set?.length || values.set.includes(page.set)),
);
const raw = new Map(pages.map((page) => [page, modelTokens(page.html)]));
const groups = new Map<string, Row[]>();
const worst = Number(values.worst);
const perPage: { key: string; name: string; row: Row }[] = [];
for (const name of chosen) {
  const chain = CHAINS[name];
  if (!chain) throw new Error(`unknown chain "${name}"; known: ${Object.keys(CHAINS).join(', ')}`);
  for (const page of pages) {
    const row = score(page, raw.get(page)!, chain);
    if (worst > 0)
      perPage.push({
        key: `${name}\t${page.set}\t${page.holdout ? 'holdout' : 'dev'}`,
        name: page.name,
        row,
      });
    for (const split of [page.holdout ? 'holdout' : 'dev', 'all'])
      for (const set of new Set([page.set, ARTICLE_SETS.has(page.set) ? 'articles' : page.set])) {
        const key = `${name}\t${set}\t${split}`;
        groups.set(key, [...(groups.get(key) ?? []), row]);
      }
  }
}

/** Snippets a page got wrong: missed "with" ones and leaked "without" ones. */
const snippetErrors = (row: Row) => (row.snippets ? row.snippets.missed + row.snippets.leaked : 0);

const pageLine = ({ name, row }: { name: string; row: Row }) =>
  `  ${name}: ${
    row.snippets
      ? `missed ${row.snippets.missed}, leaked ${row.snippets.leaked}`
      : `F1 ${fixed(row.f1)} (P ${fixed(row.precision)} / R ${fixed(row.recall)})`
  }, ${pct(row.share)} of raw tokens`;

/** Each chain's worst pages per set and split: by score, and by the share of raw tokens sent. */
function printWorst(rows: { key: string; name: string; row: Row }[], count: number) {
  const keys = [...new Set(rows.map((entry) => entry.key))].sort();
  for (const key of keys) {
    const ofKey = rows.filter((entry) => entry.key === key);
    const ranked = [...ofKey]
      .sort((a, b) => snippetErrors(b.row) - snippetErrors(a.row) || a.row.f1 - b.row.f1)
      .slice(0, count);
    console.log(`\nworst pages: ${key.replaceAll('\t', ' / ')}`);
    for (const entry of ranked) console.log(pageLine(entry));
    console.log(`largest shares: ${key.replaceAll('\t', ' / ')}`);
    for (const entry of [...ofKey].sort((a, b) => b.row.share - a.row.share).slice(0, count))
      console.log(pageLine(entry));
  }
}

/**
 * The share of raw tokens the expected text alone takes (plain words, no markup): what a cleaner sending
 * exactly the expected content would score, so a set's token mean cannot go far below it.
 */
function printFloor(scored: BenchPage[]) {
  const floors = new Map<string, number[]>();
  for (const page of scored) {
    if (!page.expected) continue;
    const floor = modelTokens(page.expected) / raw.get(page)!;
    for (const split of [page.holdout ? 'holdout' : 'dev', 'all'])
      for (const set of new Set([page.set, ARTICLE_SETS.has(page.set) ? 'articles' : page.set])) {
        const key = `${set} / ${split}`;
        floors.set(key, [...(floors.get(key) ?? []), floor]);
      }
  }
  console.log('\nexpected text alone, % of raw tokens (median / mean):');
  for (const [key, values] of [...floors].sort(([a], [b]) => a.localeCompare(b)))
    console.log(`  ${key}: ${pct(median(values))} / ${pct(mean(values))}`);
}

const results = [...groups].map(([key, rows]) => {
  const [chain, set, split] = key.split('\t');
  return { chain, set, split, ...summary(rows) };
});
console.log(
  '| chain | pages | split | F1 med / mean | precision med / mean | recall med / mean | F1 as sent med / mean | tokens % raw med / mean | tokens med |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results.sort((a, b) =>
  `${a.set}${a.chain}${a.split}`.localeCompare(`${b.set}${b.chain}${b.split}`),
))
  console.log(
    `| ${r.chain} | ${r.set} ${r.pages} | ${r.split} | ${fixed(r.f1.median)} / ${fixed(r.f1.mean)} | ${fixed(r.precision.median)} / ${fixed(r.precision.mean)} | ` +
      `${fixed(r.recall.median)} / ${fixed(r.recall.mean)} | ${fixed(r.sentF1.median)} / ${fixed(r.sentF1.mean)} | ${pct(r.share.median)} / ${pct(r.share.mean)} | ${Math.round(r.tokens.median)} |`,
  );
printFloor(pages);
if (worst > 0) printWorst(perPage, worst);
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/cleaners-${new Date().toISOString().replaceAll(':', '-')}.json`,
  JSON.stringify(results, null, 2),
);
