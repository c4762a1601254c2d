// Model-free answers on real recipe pages: the recipe-scrapers project's test pages (MIT), unpacked from
// /work/shared/data into a temporary folder for the run and deleted after. Each page goes through what an
// extract job runs — the HTML pool's clean-read task (default cleaner chain for the schema) and the
// structured-data plan — once with a schema of strings and once typed; no network, no model.
//   npm run bench:real -- [--data PATH] [--site NAME]... [--split dev|holdout] [--quiet] [--plain-wrong]
// Prints, per split of sites (bench/real/split.ts: tune on dev, never look at holdout) and per field: pages
// with an expected value, how many the model-free path answered (coverage) and how many of those were right
// (precision), beside a plain structured-data reader, and of the plain reader's right values the share
// answered too; the model calls per page; then every wrong value of the
// splits run. The model is an oracle (it would answer the expected values), so what is measured is the
// service alone: which fields need a model call, and whether what it answers without one is right.
import { parseArgs } from 'node:util';
import { MessageChannel } from 'node:worker_threads';
import runHtmlTask, { type HtmlResults } from '../activities/reading/html-pool/tasks.js';
import { planFromStructuredData } from '../activities/reading/structured-data/answer.js';
import { defaultChainFor } from '../shared/cleaners.js';
import { normalizeSchema } from '../shared/schema-input.js';
import { type Expected, firstDifference, present, same } from './real/compare.js';
import { plainRecipe } from './real/plain-reader.js';
import {
  EXPECTED,
  FIELDS,
  RECIPE_DATA,
  recipePages,
  TYPED_SCHEMA,
  urlOf,
  withRecipeData,
} from './real/recipe-pages.js';
import { type SplitCounts, type Tally, table } from './real/report.js';
import { SPLITS, type Split } from './real/split.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: RECIPE_DATA },
    site: { type: 'string', multiple: true },
    split: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    /** Also list the plain reader's wrong values. */
    'plain-wrong': { type: 'boolean', default: false },
  },
});

/** What a user would write: every field a string; and the same fields typed. */
const VARIANTS = {
  strings: Object.fromEntries(FIELDS.map((f) => [f, 'string'])),
  typed: TYPED_SCHEMA,
} as const;
type Variant = keyof typeof VARIANTS | 'plain';
const COLUMNS: Variant[] = ['plain', 'strings', 'typed'];

interface Wrong {
  split: Split;
  variant: Variant;
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

/** The model-free answer of one variant for one page: the answered fields' values. */
async function answer(html: string, url: string, variant: keyof typeof VARIANTS) {
  const schema = normalizeSchema(VARIANTS[variant]);
  const read = await cleanRead(html, url, schema);
  if (!read) return { data: {}, structured: [], model: true };
  const plan = planFromStructuredData(schema, read.structured, read.cleaned);
  return { data: plan?.mapping.data ?? {}, structured: read.structured, model: !plan || plan.rest !== null };
}

function counts(): SplitCounts<Variant> {
  const fresh = () =>
    Object.fromEntries(
      FIELDS.map((f) => [f, { expected: 0, answered: 0, right: 0, plainRight: 0, answeredOfPlainRight: 0 }]),
    );
  const page = () => ({ pages: 0, modelCalls: 0 });
  return {
    fields: { plain: fresh(), strings: fresh(), typed: fresh() },
    pages: { plain: page(), strings: page(), typed: page() },
  };
}

async function main() {
  await withRecipeData(values.data, async (dir) => {
    const bySplit = { dev: counts(), holdout: counts() };
    const wrong: Wrong[] = [];
    for (const { page, split, html, expected } of recipePages(dir, {
      sites: values.site,
      split: values.split,
    })) {
      const url = urlOf(expected);
      const [strings, typed] = [await answer(html, url, 'strings'), await answer(html, url, 'typed')];
      const answers: Record<Variant, Record<string, unknown>> = {
        strings: strings.data,
        typed: typed.data,
        plain: plainRecipe(strings.structured),
      };
      const model: Record<Variant, boolean> = {
        strings: strings.model,
        typed: typed.model,
        plain: FIELDS.some((f) => answers.plain[f] === undefined || answers.plain[f] === null),
      };
      const tally = bySplit[split];
      const given = (v: unknown) => v !== undefined && v !== null;
      for (const variant of COLUMNS) {
        tally.pages[variant].pages++;
        if (model[variant]) tally.pages[variant].modelCalls++;
        for (const field of FIELDS) {
          const want = expected[EXPECTED[field] as string];
          if (!present(want)) continue;
          const t = tally.fields[variant][field] as Tally;
          t.expected++;
          const got = answers[variant][field];
          const plainGot = answers.plain[field];
          const plainRight = given(plainGot) && same(field, plainGot, want as Expected);
          if (plainRight) t.plainRight++;
          if (!given(got)) continue;
          t.answered++;
          if (plainRight) t.answeredOfPlainRight++;
          if (same(field, got, want as Expected)) t.right++;
          else if (variant !== 'plain' || values['plain-wrong'])
            wrong.push({ split, variant, page, field, got, expected: want });
        }
      }
    }
    print(bySplit, wrong);
  });
}

function print(bySplit: Record<Split, SplitCounts<Variant>>, wrong: Wrong[]) {
  console.log('Recipe pages: the recipe-scrapers test data (MIT)\n');
  for (const split of SPLITS)
    if (bySplit[split].pages.plain.pages > 0)
      console.log(`${table(split, COLUMNS, FIELDS, bySplit[split], 'plain')}\n`);
  console.log(`${wrong.length} wrong model-free values`);
  if (values.quiet) return;
  const show = (v: unknown) => JSON.stringify(v).slice(0, 300);
  for (const w of wrong) {
    const differs = firstDifference(w.got, w.expected);
    console.log(`- ${w.split} ${w.variant} ${w.page} ${w.field}`);
    console.log(`    got      ${show(w.got)}\n    expected ${show(w.expected)}`);
    if (differs) console.log(`    differs  ${differs.slice(0, 400)}`);
  }
}

await main();
