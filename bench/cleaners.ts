// Cleaner bench: each cleaner chain over real article pages and generated listing pages, scored on body text
// (token F1 / precision / recall against the expected content) and on size (model tokens of the output as
// a share of the raw HTML's). Fetch the corpus first: bench/cleaners/fetch-corpus.sh.
//   npm run bench:cleaners -- [--chain NAME]... [--set readability|newspaper4k|listings]... [--split dev|holdout|all]
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CleanerStep, runChain } from '../activities/cleaners/index.js';
import { chainOutputFormat } from '../shared/cleaners.js';
import { type BenchPage, loadCorpus } from './cleaners/corpus.js';
import { htmlText, mean, median, modelTokens, overlap } from './cleaners/score.js';

const CHAINS: Record<string, CleanerStep[]> = {
  'readability,text': [{ name: 'readability' }, { name: 'text' }],
  readability: [{ name: 'readability' }],
  'readability,markdown': [{ name: 'readability' }, { name: 'markdown' }],
  'markdown (default)': [{ name: 'markdown' }],
  'markdown no urls': [{ name: 'markdown', options: { include_links: false, include_images: false } }],
  text: [{ name: 'text' }],
  'markdown chrome-free': [{ name: 'markdown', options: { drop_boilerplate: true } }],
  'markdown chrome-free no urls': [
    { name: 'markdown', options: { drop_boilerplate: true, include_links: false, include_images: false } },
  ],
  'text chrome-free': [{ name: 'text', options: { drop_boilerplate: true } }],
};

const { values } = parseArgs({
  options: {
    chain: { type: 'string', multiple: true },
    set: { type: 'string', multiple: true },
    split: { type: 'string', default: 'all' },
  },
});
const chosen = values.chain?.length ? values.chain : Object.keys(CHAINS);
const BASE_URL = 'https://www.example.com/articles/page.html';

interface Row {
  f1: number;
  precision: number;
  recall: number;
  share: number;
  tokens: number;
}

function score(page: BenchPage, rawTokens: number, chain: CleanerStep[]): Row {
  const output = runChain(page.html, chain, { baseUrl: BASE_URL });
  const body = chainOutputFormat(chain) === 'html' ? htmlText(output) : output;
  const tokens = modelTokens(output);
  return { ...overlap(body, page.expected), share: tokens / rawTokens, tokens };
}

const pct = (value: number) => `${(100 * value).toFixed(1)}%`;
const fixed = (value: number) => value.toFixed(3);
function summary(rows: Row[]) {
  const of = (key: keyof Row) => rows.map((row) => row[key]);
  return {
    pages: rows.length,
    f1: { median: median(of('f1')), mean: mean(of('f1')) },
    precision: { median: median(of('precision')), mean: mean(of('precision')) },
    recall: { median: median(of('recall')), mean: mean(of('recall')) },
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
for (const name of chosen) {
  const chain = CHAINS[name];
  if (!chain) throw new Error(`unknown chain "${name}"; known: ${Object.keys(CHAINS).join(', ')}`);
  for (const page of pages) {
    const row = score(page, raw.get(page)!, chain);
    for (const split of [page.holdout ? 'holdout' : 'dev', 'all'])
      for (const set of new Set([page.set, page.set === 'listings' ? 'listings' : 'articles'])) {
        const key = `${name}\t${set}\t${split}`;
        groups.set(key, [...(groups.get(key) ?? []), row]);
      }
  }
}

const results = [...groups].map(([key, rows]) => {
  const [chain, set, split] = key.split('\t');
  return { chain, set, split, ...summary(rows) };
});
console.log(
  '| chain | pages | split | F1 med / mean | precision med / mean | recall med / mean | tokens % raw med / mean | tokens med |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results.sort((a, b) =>
  `${a.set}${a.chain}${a.split}`.localeCompare(`${b.set}${b.chain}${b.split}`),
))
  console.log(
    `| ${r.chain} | ${r.set} ${r.pages} | ${r.split} | ${fixed(r.f1.median)} / ${fixed(r.f1.mean)} | ${fixed(r.precision.median)} / ${fixed(r.precision.mean)} | ` +
      `${fixed(r.recall.median)} / ${fixed(r.recall.mean)} | ${pct(r.share.median)} / ${pct(r.share.mean)} | ${Math.round(r.tokens.median)} |`,
  );
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/cleaners-${new Date().toISOString().replaceAll(':', '-')}.json`,
  JSON.stringify(results, null, 2),
);
