// Cleaner bench per kind of page: trafilatura's evaluation and real-world pages (fetch-corpus.sh), each sorted
// into a kind by its address and markup (bench/cleaners/kinds.ts), scored by the snippets its main text must
// and must not hold, for [readability, text], the default chain and trafilatura on the same pages; plus the
// generated listings (listings.ts, word F1 against every item). Per kind and split (dev / holdout, the
// corpus's fixed hash split): F1 / P / R pooled over the snippets as trafilatura's evaluation counts them,
// the median share of the raw page's model tokens sent, and the share of pages that kept what should be
// left out (a must-not snippet; on generated listings, lines that are no item, bench/real/cleaners-score.ts).
//   npm run bench:cleaners:kinds -- [--split dev|holdout|all] [--kind KIND]... [--chain NAME]... [--no-trafilatura] [--worst N]
// --worst N lists the dev pages each chain got most wrong, per kind; never the held-out ones.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CleanerStep } from '../activities/reading/cleaners/index.js';
import { chainOutputFormat, defaultChainFor } from '../shared/cleaners.js';
import { normalizeSchema } from '../shared/schema-input.js';
import { type BenchPage, loadCorpus } from './cleaners/corpus.js';
import { type PageKind, pageKind } from './cleaners/kinds.js';
import { runBoth } from './cleaners/run.js';
import { htmlText, mean, median, modelTokens, overlap, snippetCounts } from './cleaners/score.js';
import { LEAK_PAGE_SHARE, leakedLines } from './real/cleaners-score.js';
import { trafilaturaTexts } from './real/trafilatura.js';

const { values } = parseArgs({
  options: {
    split: { type: 'string', default: 'all' },
    'no-trafilatura': { type: 'boolean', default: false },
    worst: { type: 'string', default: '0' },
    kind: { type: 'string', multiple: true },
    chain: { type: 'string', multiple: true },
  },
});

const DEFAULT_CHAIN = defaultChainFor(normalizeSchema({ title: 'string', body: 'string' }));
const CHAINS: Record<string, CleanerStep[]> = {
  'readability,text': [{ name: 'readability' }, { name: 'text' }],
  'default (markdown)': DEFAULT_CHAIN,
};
const TRAFILATURA = 'trafilatura 2.3.1';
const BASE_URL = 'https://www.example.com/listing/page.html';

interface Scored {
  page: BenchPage;
  kind: PageKind | 'listing (generated)';
  found: number;
  missed: number;
  leaked: number;
  /** Word F1 / P / R, for pages with a whole expected text. */
  f1: number;
  precision: number;
  recall: number;
  share: number;
  keptBoilerplate: boolean;
}

function scoreText(page: BenchPage, kind: Scored['kind'], body: string, sent: string, raw: number): Scored {
  const share = modelTokens(sent) / raw;
  if (page.snippets) {
    const counts = snippetCounts(body, page.snippets);
    return {
      page,
      kind,
      ...counts,
      f1: 0,
      precision: 0,
      recall: 0,
      share,
      keptBoilerplate: counts.leaked > 0,
    };
  }
  const leaked = leakedLines(body, page.expected);
  const leakedShare = leaked.join(' ').split(/\s+/).length / Math.max(1, body.split(/\s+/).length);
  return {
    page,
    kind,
    found: 0,
    missed: 0,
    leaked: 0,
    ...overlap(body, page.expected),
    share,
    keptBoilerplate: leaked.length > 0 && leakedShare >= LEAK_PAGE_SHARE,
  };
}

const all = loadCorpus().filter(
  (page) =>
    (page.url !== undefined || page.set === 'listings') &&
    (values.split === 'all' || (values.split === 'holdout') === page.holdout),
);
const kindOf = new Map(
  all.map((page) => [page, page.url ? pageKind(page.url, page.html) : ('listing (generated)' as const)]),
);
const pages = all.filter((page) => !values.kind?.length || values.kind.includes(kindOf.get(page)!));
const raw = new Map(pages.map((page) => [page, modelTokens(page.html)]));
const results = new Map<string, Scored[]>();
for (const [name, chain] of Object.entries(CHAINS).filter(
  ([name]) => !values.chain?.length || values.chain.includes(name),
))
  results.set(
    name,
    pages.map((page) => {
      const { sent, body } = runBoth(page.html, chain, page.url ?? BASE_URL);
      const asText = (out: string) => (chainOutputFormat(chain) === 'html' ? htmlText(out) : out);
      return scoreText(page, kindOf.get(page)!, asText(body), asText(sent), raw.get(page)!);
    }),
  );

if (!values['no-trafilatura']) {
  const dir = mkdtempSync(join(tmpdir(), 'cleaner-kinds-'));
  try {
    const files = pages.map((page, index) => {
      const path = join(dir, `${index}.html`);
      writeFileSync(path, page.html);
      return { id: String(index), path, url: page.url ?? BASE_URL };
    });
    const texts = trafilaturaTexts(files);
    if (texts)
      results.set(
        TRAFILATURA,
        pages.map((page, index) => {
          const text = texts.get(String(index)) ?? '';
          return scoreText(page, kindOf.get(page)!, text, text, raw.get(page)!);
        }),
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fixed = (value: number) => value.toFixed(3);
const pct = (value: number) => `${(100 * value).toFixed(1)}%`;

function summary(rows: Scored[]) {
  const share = median(rows.map((row) => row.share));
  const kept = rows.filter((row) => row.keptBoilerplate).length / rows.length;
  if (!rows[0]!.page.snippets) {
    return {
      f1: mean(rows.map((r) => r.f1)),
      precision: mean(rows.map((r) => r.precision)),
      recall: mean(rows.map((r) => r.recall)),
      share,
      kept,
    };
  }
  const sum = (key: 'found' | 'missed' | 'leaked') => rows.reduce((total, row) => total + row[key], 0);
  const precision = sum('found') / Math.max(1, sum('found') + sum('leaked'));
  const recall = sum('found') / Math.max(1, sum('found') + sum('missed'));
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall, share, kept };
}

const KIND_ORDER = [
  'article',
  'forum',
  'product',
  'listing',
  'listing (generated)',
  'documentation',
  'service',
  'all non-article',
];
console.log(
  `${pages.length} pages: trafilatura's evaluation and real-world pages by kind (go-trafilatura, Apache-2.0) ` +
    'and generated listings; snippet F1 pooled per kind, word F1 mean on generated listings\n',
);
console.log('| kind | split | pages | chain | F1 | P | R | tokens % raw (median) | kept what should go |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
const splits = values.split === 'all' ? ['dev', 'holdout', 'all'] : [values.split];
for (const kind of KIND_ORDER)
  for (const split of splits)
    for (const [name, scored] of results) {
      const rows = scored.filter(
        (row) =>
          (kind === 'all non-article'
            ? row.kind !== 'article' && row.kind !== 'listing (generated)'
            : row.kind === kind) &&
          (split === 'all' || (split === 'holdout') === row.page.holdout),
      );
      if (rows.length === 0) continue;
      const s = summary(rows);
      console.log(
        `| ${kind} | ${split} | ${rows.length} | ${name} | ${fixed(s.f1)} | ${fixed(s.precision)} | ` +
          `${fixed(s.recall)} | ${pct(s.share)} | ${pct(s.kept)} |`,
      );
    }

const worst = Number(values.worst);
if (worst > 0)
  for (const [name, scored] of results)
    for (const kind of KIND_ORDER) {
      const dev = scored.filter((row) => row.kind === kind && !row.page.holdout && row.page.snippets);
      if (dev.length === 0) continue;
      console.log(`\nworst dev pages: ${name} / ${kind}`);
      for (const row of [...dev].sort((a, b) => b.missed + b.leaked - (a.missed + a.leaked)).slice(0, worst))
        console.log(
          `  ${row.page.set}/${row.page.name} ${row.page.url}: missed ${row.missed}, leaked ${row.leaked}, ${pct(row.share)}`,
        );
    }
