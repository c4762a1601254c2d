// Model-free answers on real pages: recipe pages (the recipe-scrapers project's test pages, MIT) and news
// pages (AndyTheFactory's article-extraction dataset, Apache-2.0), each archive unpacked from /work/shared/data
// into a temporary folder for the run and deleted after. Each page goes through what an extract job runs — the
// HTML pool's clean-read task (default cleaner chain for the schema) and the structured-data plan — once with
// a schema of strings and once typed; no network, no model.
//   npm run bench:real -- [--corpus recipes|articles]... [--data PATH] [--site NAME]... [--split dev|holdout]
//                         [--half a|b]
//                         [--quiet] [--plain-wrong] [--missed] [--answers FILE]
// Prints, per corpus, per split of sites (tune on dev, never look at holdout) and per field: pages with an
// expected value, how many the model-free path answered (coverage) and how many of those were right
// (precision), beside a plain structured-data reader, and of the plain reader's right values the share
// answered too; the model calls per page; then every wrong value of the splits run. The model is an oracle
// (it would answer the expected values), so what is measured is the service alone: which fields need a model
// call, and whether what it answers without one is right.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MessageChannel } from 'node:worker_threads';
import runHtmlTask, { type HtmlResults } from '../activities/reading/html-pool/tasks.js';
import { planFromStructuredData } from '../activities/reading/structured-data/answer.js';
import { defaultChainFor } from '../shared/cleaners.js';
import { normalizeSchema } from '../shared/schema-input.js';
import { articles } from './real/articles.js';
import { type BenchPage, byField, type Corpus, schemaOf, type Variant } from './real/corpus.js';
import { recipes } from './real/recipes.js';
import { type SplitCounts, type Tally, table } from './real/report.js';
import { halfOf, SPLITS, type Split } from './real/split.js';

const CORPORA: Record<string, Corpus> = { recipes, articles };

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', multiple: true },
    /** The archive, where one corpus is run. */
    data: { type: 'string' },
    site: { type: 'string', multiple: true },
    split: { type: 'string' },
    /** Only the sites of one half of each split (by a hash of the site), to see what rules fitted on one half do on the other. */
    half: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    /** Also list the plain reader's wrong values. */
    'plain-wrong': { type: 'boolean', default: false },
    /** Also list the plain reader's right values the schema of strings leaves to the model. */
    missed: { type: 'boolean', default: false },
    /** Write every page's answers, one JSON line a page, to compare two versions of the rules. */
    answers: { type: 'string' },
  },
});

type Column = 'plain' | 'strings' | 'typed';
const COLUMNS: Column[] = ['plain', 'strings', 'typed'];

interface Wrong {
  split: Split;
  variant: Column;
  page: string;
  field: string;
  got: unknown;
  expected: unknown;
}

async function cleanRead(html: string, url: string, schema: ReturnType<typeof normalizeSchema>) {
  const { port1, port2 } = new MessageChannel();
  const task = { kind: 'clean-read' as const, body: html, contentType: 'text/html', baseUrl: url };
  const outcome = await runHtmlTask({ task: { ...task, chain: defaultChainFor(schema) }, started: port1 });
  port2.close();
  return outcome.ok ? (outcome.value as HtmlResults['clean-read']) : null;
}

/** The model-free answer of one schema for one page: the answered values by bench field. */
async function answer(html: string, url: string, variant: Variant) {
  const schema = normalizeSchema(schemaOf(variant));
  const read = await cleanRead(html, url, schema);
  if (!read) return { data: {}, structured: [], model: true };
  const plan = planFromStructuredData(schema, read.structured, read.cleaned);
  const data = byField(variant, plan?.mapping.data ?? {});
  return { data, structured: read.structured, model: !plan || plan.rest !== null };
}

function counts(fields: string[]): SplitCounts<Column> {
  const fresh = () =>
    Object.fromEntries(
      fields.map((f) => [f, { expected: 0, answered: 0, right: 0, plainRight: 0, answeredOfPlainRight: 0 }]),
    );
  const page = () => ({ pages: 0, modelCalls: 0 });
  return {
    fields: { plain: fresh(), strings: fresh(), typed: fresh() },
    pages: { plain: page(), strings: page(), typed: page() },
    unjudged: [],
    corrected: [],
  };
}

const given = (v: unknown) => v !== undefined && v !== null;

/** Counts one page's answers into its split's tally; wrong values go to `wrong`. */
async function judge(corpus: Corpus, bench: BenchPage, tally: SplitCounts<Column>, wrong: Wrong[]) {
  const { page, split, html, url, expected } = bench;
  for (const field of bench.unjudged ?? []) tally.unjudged.push(`${page} ${field}`);
  for (const why of bench.corrected ?? []) tally.corrected.push(`${page} ${why}`);
  const strings = await answer(html, url, corpus.variants.strings);
  const typed = await answer(html, url, corpus.variants.typed);
  const plain = corpus.plain(strings.structured);
  const answers: Record<Column, Record<string, unknown>> = {
    strings: strings.data,
    typed: typed.data,
    plain,
  };
  if (values.answers) appendFileSync(values.answers, `${JSON.stringify({ page, split, answers })}\n`);
  const model: Record<Column, boolean> = {
    strings: strings.model,
    typed: typed.model,
    plain: corpus.fields.some((f) => !given(plain[f])),
  };
  for (const variant of COLUMNS) {
    tally.pages[variant].pages++;
    if (model[variant]) tally.pages[variant].modelCalls++;
    for (const field of corpus.fields) {
      if (!(field in expected)) continue;
      const want = expected[field];
      const t = tally.fields[variant][field] as Tally;
      t.expected++;
      const got = answers[variant][field];
      const plainRight = given(plain[field]) && corpus.same(field, plain[field], want);
      if (plainRight) t.plainRight++;
      if (plainRight && !given(got) && variant === 'strings' && values.missed)
        console.log(`missed ${split} ${page} ${field}: ${JSON.stringify(plain[field]).slice(0, 200)}`);
      if (!given(got)) continue;
      t.answered++;
      if (plainRight) t.answeredOfPlainRight++;
      if (corpus.same(field, got, want)) t.right++;
      else if (variant !== 'plain' || values['plain-wrong'])
        wrong.push({ split, variant, page, field, got, expected: want });
    }
  }
}

async function run(corpus: Corpus, archive: string) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-real-'));
  try {
    execFileSync('tar', ['-xJf', archive, '-C', dir]);
    const bySplit = { dev: counts(corpus.fields), holdout: counts(corpus.fields) };
    const wrong: Wrong[] = [];
    for (const page of corpus.pages(dir, { sites: values.site, split: values.split })) {
      if (values.half && halfOf(page.page.split('/')[0] as string) !== values.half) continue;
      await judge(corpus, page, bySplit[page.split], wrong);
    }
    print(corpus, bySplit, wrong);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function print(corpus: Corpus, bySplit: Record<Split, SplitCounts<Column>>, wrong: Wrong[]) {
  console.log(`${corpus.heading}\n`);
  for (const split of SPLITS) {
    const counts = bySplit[split];
    if (counts.pages.plain.pages === 0) continue;
    console.log(`${table(split, COLUMNS, corpus.fields, counts, 'plain')}\n`);
    if (counts.corrected.length > 0) {
      console.log(`${counts.corrected.length} expected values corrected to what the stored page states:`);
      for (const c of counts.corrected) console.log(`- ${split} ${c}`);
    }
    if (counts.unjudged.length > 0) {
      console.log(`${counts.unjudged.length} expected values not in the stored page, not judged:`);
      if (!values.quiet) for (const u of counts.unjudged) console.log(`- ${split} ${u}`);
    }
    console.log('');
  }
  console.log(`${wrong.length} wrong model-free values`);
  if (values.quiet) return;
  const show = (v: unknown) => JSON.stringify(v).slice(0, 300);
  for (const w of wrong) {
    const differs = corpus.differs?.(w.got, w.expected);
    console.log(`- ${w.split} ${w.variant} ${w.page} ${w.field}`);
    console.log(`    got      ${show(w.got)}\n    expected ${show(w.expected)}`);
    if (differs) console.log(`    differs  ${differs.slice(0, 400)}`);
  }
}

const chosen = values.corpus?.length ? values.corpus : Object.keys(CORPORA);
for (const name of chosen) {
  const corpus = CORPORA[name];
  if (!corpus) throw new Error(`unknown corpus ${name}; one of ${Object.keys(CORPORA).join(', ')}`);
  await run(corpus, chosen.length === 1 && values.data ? values.data : corpus.archive);
  console.log('');
}
