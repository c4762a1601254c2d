// Learned extractors at the scale of a site: one real recipe page per site is the template, and N pages of
// it carry other recipes' content (page-content.ts: another recipe's title, author, lists of other lengths…
// written into the template's own markup; an optional field missing on some; the variants of
// page-variants.ts on a share), crawled in a shuffled order through the crawl path (learned-crawl.ts, an
// oracle model answering the values written, structured data off):
//   npm run bench:real:learned:scale -- [--data PATH] [--split dev|holdout] [--site NAME]... [--limit N]
//                                       [--pages N] [--variants SHARE] [--missing SHARE] [--check-every N]
//                                       [--quiet]
// Twice per site: with the schema of the fields the template shows (those a selector reads as the
// expected values say), and with the full schema (the others go to the model on every page). Per site: pages
// to the model (all, and after the first 20), extractor documents; per field: coverage and precision of the
// values answered without the model, judged strictly (words in order, lists line by line); every wrong value
// is listed for the dev split only (the held-out split's figures are read, never its pages).
// SHOW_CHARS=N in the environment prints N characters of each wrong value and its expected one (default 200).
import { parseArgs } from 'node:util';
import { words } from './compare.js';
import { learnedCrawler } from './learned-crawl.js';
import { fieldTable, scoreFields, seeded, shuffled, type Tallies, talliesOf } from './learned-report.js';
import { OPTIONAL, type Template, templateOf, withContent } from './page-content.js';
import { variantOf } from './page-variants.js';
import {
  EXPECTED,
  FIELDS,
  RECIPE_DATA,
  type RecipePage,
  recipePages,
  urlOf,
  withRecipeData,
} from './recipe-pages.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: RECIPE_DATA },
    site: { type: 'string', multiple: true },
    split: { type: 'string', default: 'dev' },
    limit: { type: 'string' },
    /** The sites after the first N (with --limit: a slice of the split's sites). */
    skip: { type: 'string', default: '0' },
    pages: { type: 'string', default: '300' },
    /** Pages crawled again with the full schema (the first of the same shuffled order). */
    'full-pages': { type: 'string', default: '100' },
    /** Share of pages also given one of page-variants.ts's variants. */
    variants: { type: 'string', default: '0.3' },
    /** Share of pages without one of their optional fields (drawn from the five; a field not shown stays). */
    missing: { type: 'string', default: '0.1' },
    'check-every': { type: 'string', default: '200' },
    quiet: { type: 'boolean', default: false },
    /** Each page after the first 20 that reached the model: why (its kind, the fields asked, its changes). */
    trace: { type: 'boolean', default: false },
  },
});
const PAGES = Number(values.pages);
/** Pages after which a site's template should be learned: the model's share is also counted after them. */
const WARM = 20;

interface Wrong {
  page: string;
  field: string;
  got: unknown;
  expected: unknown;
  changes: string[];
}

interface SiteRun {
  pages: number;
  model: number;
  modelAfter: number;
  checks: number;
  documents: number;
  tallies: Tallies;
  /** Per field, pages after the first WARM where the model was asked for it. */
  asked: Record<string, number>;
  wrong: Wrong[];
}

/** Strictly: the words in order, a list line by line, a number equal. */
function exactly(field: string, got: unknown, want: unknown): boolean {
  if (field === 'total_time') return got === want;
  if (Array.isArray(want))
    return (
      Array.isArray(got) &&
      got.length === want.length &&
      got.every((g, i) => words(String(g)) === words(String(want[i])))
    );
  return typeof got === 'string' && words(got) === words(String(want));
}

/** A value of the field's kind: a list of lines, a number, a string. */
function usable(field: string, v: unknown): boolean {
  if (field === 'ingredients' || field === 'instructions')
    return Array.isArray(v) && v.length > 0 && v.every((l) => typeof l === 'string' && l.trim());
  if (field === 'total_time') return typeof v === 'number' && v > 0;
  return typeof v === 'string' && v.trim() !== '';
}

interface Generated {
  id: string;
  html: string;
  expected: Record<string, unknown>;
  changes: string[];
}

/**
 * The template's page `i`, with another recipe's values for the fields it shows. Made when it is crawled, not
 * all at once: a site's pages may be megabytes each (hellofresh.com's 2.4 MB), and hundreds of them held
 * together, with what their making leaves reachable, run the heap out.
 */
function generate(site: string, t: Template, donors: RecipePage[], i: number): Generated {
  const rnd = seeded(`${site}#${i}`);
  const donor = donors[Math.floor(rnd() * donors.length)] as RecipePage;
  const changes: string[] = [];
  const content: Record<string, unknown> = {};
  const drop = rnd() < Number(values.missing) ? OPTIONAL[Math.floor(rnd() * OPTIONAL.length)] : null;
  for (const field of Object.keys(t.held)) {
    // The site's own value (its name as the author) stays on each of its pages, and is never missing.
    if (t.own.includes(field)) continue;
    const key = EXPECTED[field] as string;
    let v = donor.expected[key];
    if (field === drop) v = null;
    // A field the recipe lacks is another's: a site's recipes show the same fields (but the one dropped).
    for (let k = 1; v !== null && !usable(field, v) && k < donors.length; k++)
      v = donors[(donors.indexOf(donor) + k) % donors.length]?.expected[key];
    if (v === null) changes.push(`missing:${field}`);
    content[key] = v;
  }
  let page = withContent(t, content);
  if (rnd() < Number(values.variants)) {
    const v = variantOf(page.html, page.expected, i, site);
    page = { html: v.html, expected: v.expected };
    changes.push(...v.changes);
  }
  return { id: `${site}#${i}`, ...page, changes };
}

async function crawlSite(
  site: string,
  t: Template,
  pageAt: (i: number) => Generated,
  fields: string[],
  most = PAGES,
): Promise<SiteRun> {
  const crawler = learnedCrawler(Number(values['check-every']), fields);
  const run: SiteRun = {
    pages: 0,
    model: 0,
    modelAfter: 0,
    checks: 0,
    documents: 0,
    tallies: talliesOf(fields),
    asked: Object.fromEntries(fields.map((f) => [f, 0])),
    wrong: [],
  };
  const order = shuffled(
    Array.from({ length: PAGES }, (_, i) => i),
    site,
  );
  for (const i of order.slice(0, most)) {
    const page = pageAt(i);
    const out = await crawler.crawl(site, {
      family: site,
      html: page.html,
      url: t.url,
      expected: page.expected,
    });
    const warm = run.pages >= WARM;
    run.pages++;
    if (out.kind !== 'extractor') {
      run.model++;
      if (warm) run.modelAfter++;
      const left = fields.filter((f) => !(f in out.free));
      if (warm) for (const f of left) run.asked[f] = (run.asked[f] ?? 0) + 1;
      if (warm && values.trace)
        process.stderr.write(
          `${page.id} ${fields.length}: ${out.kind} ${left.join(' ')} [${page.changes.join(' ')}]\n`,
        );
    }
    if (out.kind === 'check') run.checks++;
    scoreFields(run.tallies, fields, out.free, page.expected, exactly, (w) =>
      run.wrong.push({ page: page.id, changes: page.changes, ...w }),
    );
  }
  run.documents = await crawler.documents(site);
  return run;
}

const share = (a: number, b: number) => (b === 0 ? '—' : (a / b).toFixed(3));

function add(into: Tallies, from: Tallies) {
  for (const [f, t] of Object.entries(from)) {
    const sum = into[f];
    if (!sum) continue;
    sum.expected += t.expected;
    sum.answered += t.answered;
    sum.right += t.right;
    sum.answeredAbsent += t.answeredAbsent;
  }
}

async function main() {
  await withRecipeData(values.data, async (dir) => {
    const all = [...recipePages(dir, { split: values.split })];
    const sites = [...new Set(all.map((p) => p.site))].filter(
      (s) => !values.site?.length || values.site.includes(s),
    );
    const limit = values.limit === undefined ? sites.length : Number(values.limit);
    const runs = { held: talliesOf(FIELDS), full: talliesOf(FIELDS) };
    const asked = Object.fromEntries(FIELDS.map((f) => [f, 0]));
    const totals = {
      sites: 0,
      skipped: 0,
      pages: 0,
      model: 0,
      after: 0,
      afterPages: 0,
      documents: 0,
      checks: 0,
    };
    const full = { pages: 0, model: 0, after: 0, afterPages: 0, documents: 0 };
    const wrong: Wrong[] = [];
    console.log(
      '| site | fields shown | pages | to model | after 20 | checks | documents | wrong | full schema: to model | after 20 | documents | wrong |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    const skip = Number(values.skip);
    for (const site of sites.slice(skip, skip + limit)) {
      const real = all.find((p) => p.site === site) as RecipePage;
      const ofSite = all.filter((p) => p.site === site).map((p) => p.expected);
      const t = templateOf(real.html, urlOf(real.expected), real.expected, ofSite);
      const shown = Object.keys(t.held);
      if (shown.length === 0) {
        totals.skipped++;
        continue;
      }
      const pageAt = (i: number) => generate(site, t, all, i);
      const h = await crawlSite(site, t, pageAt, shown);
      const f = await crawlSite(site, t, pageAt, FIELDS, Number(values['full-pages']));
      totals.sites++;
      totals.pages += h.pages;
      totals.model += h.model;
      totals.after += h.modelAfter;
      totals.afterPages += Math.max(0, h.pages - WARM);
      totals.documents += h.documents;
      totals.checks += h.checks;
      full.pages += f.pages;
      full.afterPages += Math.max(0, f.pages - WARM);
      full.model += f.model;
      full.after += f.modelAfter;
      full.documents += f.documents;
      add(runs.held, h.tallies);
      add(runs.full, f.tallies);
      for (const [k, n] of Object.entries(h.asked)) asked[k] = (asked[k] ?? 0) + n;
      wrong.push(...h.wrong, ...f.wrong.map((w) => ({ ...w, page: `${w.page} (full)` })));
      const after = Math.max(1, h.pages - WARM);
      const fullAfter = Math.max(1, f.pages - WARM);
      console.log(
        `| ${site} | ${shown.length}: ${shown.join(' ')} | ${h.pages} | ${share(h.model, h.pages)} | ${share(h.modelAfter, after)} | ${h.checks} | ${h.documents} | ${h.wrong.length} | ${share(f.model, f.pages)} | ${share(f.modelAfter, fullAfter)} | ${f.documents} | ${f.wrong.length} |`,
      );
    }
    print(totals, full, runs, asked, wrong);
  });
}

function print(
  totals: Record<string, number>,
  full: Record<string, number>,
  runs: Record<'held' | 'full', Tallies>,
  asked: Record<string, number>,
  wrong: Wrong[],
) {
  const n = (k: string) => totals[k] as number;
  console.log(
    `\n${values.split} split: ${n('sites')} sites × ${PAGES} pages (${n('skipped')} sites skipped: no field shown as expected)`,
  );
  console.log(
    `fields shown: ${n('model')} of ${n('pages')} pages to the model (${share(n('model'), n('pages'))}; after the first ${WARM} of each site ${n('after')} of ${n('afterPages')}, ${share(n('after'), n('afterPages'))}; ${n('checks')} of them checks), ${n('documents')} extractor documents (${share(n('documents'), n('sites'))} per site)`,
  );
  console.log(
    `full schema (the first ${values['full-pages']} pages of each site): ${full.model} of ${full.pages} pages to the model (${share(full.model as number, full.pages as number)}; after the first ${WARM}: ${share(full.after as number, full.afterPages as number)}), ${full.documents} extractor documents`,
  );
  console.log(`\n${fieldTable(FIELDS, { 'fields shown': runs.held, 'full schema': runs.full })}\n`);
  console.log(
    `fields shown, pages after the first ${WARM} where the model was asked for the field: ${FIELDS.map((f) => `${f} ${asked[f]}`).join(', ')}`,
  );
  const scope =
    values.split === 'dev' ? `${wrong.length} wrong values` : 'wrong values not listed (held-out split)';
  console.log(`\n${scope}`);
  if (values.quiet || values.split !== 'dev') return;
  const show = (v: unknown) => JSON.stringify(v).slice(0, Number(process.env.SHOW_CHARS ?? 200));
  for (const w of wrong) {
    console.log(`- ${w.page} ${w.field}${w.changes.length ? ` [${w.changes.join(' ')}]` : ''}`);
    console.log(`    got      ${show(w.got)}\n    expected ${show(w.expected)}`);
  }
}

await main();
