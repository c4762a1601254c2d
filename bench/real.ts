// Model-free answers on real recipe pages: the recipe-scrapers project's test pages (MIT), unpacked from
// /work/shared/data into a temporary folder for the run and deleted after. Each page goes through what an
// extract job runs — the HTML pool's clean-read task (default cleaner chain for the schema) and the
// structured-data plan — once with a schema of strings and once typed; no network, no model.
//   npm run bench:real -- [--data PATH] [--site NAME]... [--quiet] [--plain-wrong]
// Prints, per field: pages with an expected value, how many the model-free path answered (coverage) and how
// many of those were right (precision), beside a plain structured-data reader; then every wrong value.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MessageChannel } from 'node:worker_threads';
import runHtmlTask, { type HtmlResults } from '../activities/html-pool/tasks.js';
import { planFromStructuredData } from '../activities/structured-data/answer.js';
import { defaultChainFor } from '../shared/cleaners.js';
import { normalizeSchema } from '../shared/schema-input.js';
import { type Expected, firstDifference, present, same } from './real/compare.js';
import { plainRecipe } from './real/plain-reader.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '/work/shared/data/recipe-pages.tar.xz' },
    site: { type: 'string', multiple: true },
    quiet: { type: 'boolean', default: false },
    /** Also list the plain reader's wrong values. */
    'plain-wrong': { type: 'boolean', default: false },
  },
});

/** Bench field → the expected value's key in the test data. */
const EXPECTED: Record<string, string> = {
  title: 'title',
  author: 'author',
  ingredients: 'ingredients',
  instructions: 'instructions_list',
  description: 'description',
  image: 'image',
  total_time: 'total_time',
  yields: 'yields',
};
const FIELDS = Object.keys(EXPECTED);

/** What a user would write: every field a string; and the same fields typed. */
const VARIANTS = {
  strings: Object.fromEntries(FIELDS.map((f) => [f, 'string'])),
  typed: {
    title: 'string',
    author: 'string',
    ingredients: ['string'],
    instructions: ['string'],
    description: 'string',
    image: 'string',
    total_time: 'number',
    yields: 'string',
  },
} as const;
type Variant = keyof typeof VARIANTS | 'plain';
const COLUMNS: Variant[] = ['plain', 'strings', 'typed'];

interface Tally {
  expected: number;
  answered: number;
  right: number;
}
interface Wrong {
  variant: Variant;
  page: string;
  field: string;
  got: unknown;
  expected: unknown;
}

function* pages(root: string): Generator<{ page: string; html: string; expected: Record<string, unknown> }> {
  const dir = join(root, 'tests', 'test_data');
  for (const site of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!site.isDirectory()) continue; // a stray page without its expected values
    if (values.site?.length && !values.site.includes(site.name)) continue;
    const folder = join(dir, site.name);
    for (const file of readdirSync(folder).sort()) {
      if (!file.endsWith('.testhtml')) continue;
      const json = join(folder, file.replace(/\.testhtml$/, '.json'));
      if (!existsSync(json)) continue;
      const expected = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
      yield { page: `${site.name}/${file}`, html: readFileSync(join(folder, file), 'utf8'), expected };
    }
  }
}

async function cleanRead(html: string, url: string, schema: ReturnType<typeof normalizeSchema>) {
  const { port1, port2 } = new MessageChannel();
  const task = { kind: 'clean-read' as const, body: html, contentType: 'text/html', baseUrl: url };
  const outcome = await runHtmlTask({ task: { ...task, chain: defaultChainFor(schema) }, started: port1 });
  port2.close();
  return outcome.ok ? (outcome.value as HtmlResults['clean-read']) : null;
}

/** The model-free answer of one variant for one page: the answered fields' values. */
async function answer(html: string, url: string, variant: keyof typeof VARIANTS) {
  const schema = normalizeSchema(VARIANTS[variant]);
  const read = await cleanRead(html, url, schema);
  if (!read) return { data: {}, structured: [] };
  const plan = planFromStructuredData(schema, read.structured, read.cleaned);
  return { data: plan?.mapping.data ?? {}, structured: read.structured };
}

function tallies(): Record<Variant, Record<string, Tally>> {
  const fresh = () => Object.fromEntries(FIELDS.map((f) => [f, { expected: 0, answered: 0, right: 0 }]));
  return { plain: fresh(), strings: fresh(), typed: fresh() };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-real-'));
  try {
    execFileSync('tar', ['-xJf', values.data, '-C', dir]);
    const counts = tallies();
    const wrong: Wrong[] = [];
    let n = 0;
    for (const { page, html, expected } of pages(dir)) {
      n++;
      const url =
        typeof expected.canonical_url === 'string' ? expected.canonical_url : 'https://example.com/';
      const strings = await answer(html, url, 'strings');
      const answers: Record<Variant, Record<string, unknown>> = {
        strings: strings.data,
        typed: (await answer(html, url, 'typed')).data,
        plain: plainRecipe(strings.structured),
      };
      for (const variant of COLUMNS)
        for (const field of FIELDS) {
          const want = expected[EXPECTED[field] as string];
          if (!present(want)) continue;
          const t = counts[variant][field] as Tally;
          t.expected++;
          const got = answers[variant][field];
          if (got === undefined || got === null) continue;
          t.answered++;
          if (same(field, got, want as Expected)) t.right++;
          else if (variant !== 'plain' || values['plain-wrong'])
            wrong.push({ variant, page, field, got, expected: want });
        }
    }
    print(n, counts, wrong);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);
const prec = (t: Tally) => (t.answered === 0 ? '—' : (t.right / t.answered).toFixed(3));

function print(n: number, counts: Record<Variant, Record<string, Tally>>, wrong: Wrong[]) {
  console.log(`${n} pages (recipe-scrapers test data, MIT)\n`);
  const head = ['field', 'expected', ...COLUMNS.flatMap((v) => [`${v} cov`, `${v} prec`])];
  const rows = FIELDS.map((f) => [
    f,
    String(counts.plain[f]?.expected),
    ...COLUMNS.flatMap((v) => {
      const t = counts[v][f] as Tally;
      return [pct(t.answered, t.expected), prec(t)];
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  console.log(`\n${wrong.length} wrong model-free values`);
  if (values.quiet) return;
  const show = (v: unknown) => JSON.stringify(v).slice(0, 300);
  for (const w of wrong) {
    const differs = firstDifference(w.got, w.expected);
    console.log(`- ${w.variant} ${w.page} ${w.field}`);
    console.log(`    got      ${show(w.got)}\n    expected ${show(w.expected)}`);
    if (differs) console.log(`    differs  ${differs.slice(0, 400)}`);
  }
}

await main();
