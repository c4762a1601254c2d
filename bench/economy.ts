// Economy benchmark: a generated shop with ground truth, crawled by the real
// stack with a fake model that answers correctly after a realistic latency with real token counts.
//   npm run bench:economy -- [--pages 1000] [--concurrency 10] [--latency-ms 1000]
//                            [--runs model-only,structured-data,learned-extractors,both] [--variants]
// Quick: npm run bench:economy -- --pages 200 --latency-ms 200
//
// The shop (bench/economy/catalogue.ts): listing pages /shop/list/N (20 items each, a next link) and item
// pages /shop/item/K of one template; 40% of the conforming items carry JSON-LD Product/Offer (a quarter of
// those without brand and sku); item K deviates when K % 50 == 25 (2%: an older layout, a sale price inside
// the .price element, or no brand and no SKU), and deviating pages carry no JSON-LD. A listing's truth is every
// field null (the schema asks for one product). Accuracy: numbers within 0.005, strings after trimming.
// --variants: item pages of the template differ as real ones do (bench/economy/variants.ts: a subtitle inside
// the title heading, reviews and recommendation blocks of any length, optional blocks, extra wrappers).
// Each run is a crawl of the whole shop as a fresh tenant; prints a table and writes bench/results/economy-*.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildCatalogue } from './economy/catalogue.js';
import { startFakeModel } from './economy/fake-model.js';
import { GOALS, table, verdicts } from './economy/report.js';
import { measureRun, RUNS, type RunName, type RunReport } from './economy/runs.js';
import { startShop } from './economy/shop-server.js';
import { startStack } from './economy/stack.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '10' },
    'latency-ms': { type: 'string', default: '1000' },
    runs: { type: 'string', default: Object.keys(RUNS).join(',') },
    variants: { type: 'boolean', default: false },
  },
});
const pages = Number(values.pages);
const concurrency = Number(values.concurrency);
const latencyMs = Number(values['latency-ms']);
const runNames = values.runs.split(',').map((s) => s.trim());
for (const name of runNames)
  if (!(name in RUNS)) throw new Error(`unknown run "${name}"; runs are ${Object.keys(RUNS).join(', ')}`);
if (!(pages >= 2 && concurrency >= 1 && concurrency <= 20 && latencyMs >= 0))
  throw new Error('--pages >= 2, --concurrency 1..20, --latency-ms >= 0');

const cat = buildCatalogue(pages, values.variants);
const shop = await startShop(cat);
const model = await startFakeModel({ truth: cat.pages, latencyMs });
const stack = await startStack({ openaiBaseUrl: model.openaiBaseUrl, concurrency });

const reports: RunReport[] = [];
try {
  for (const name of runNames as RunName[]) {
    process.stderr.write(`run ${name}...\n`);
    reports.push(await measureRun(name, { stack, model, cat, siteUrl: shop.url, concurrency }));
  }
} finally {
  await stack.close();
  await model.close();
  await shop.close();
}

const modelOnly = reports.find((r) => r.run === 'model-only' && r.available);
const reference = modelOnly?.accuracy?.all_pages.overall ?? null;
const verdictsOf = (r: RunReport) => verdicts(r, reference, values.variants);
const count = (kind: 'item' | 'deviating' | 'listing') =>
  [...cat.pages.values()].filter((p) => p.kind === kind).length;
const report = {
  pages,
  variants: values.variants,
  concurrency,
  latency_ms: latencyMs,
  shop: {
    listing_pages: count('listing'),
    conforming_item_pages: count('item'),
    deviating_item_pages: count('deviating'),
    item_pages_with_json_ld: [...cat.pages.values()].filter((p) => p.jsonLd !== 'none').length,
  },
  goals: GOALS,
  accuracy_reference: reference ?? 1,
  runs: reports.map((r) => ({ ...r, verdicts: verdictsOf(r) })),
};
process.stdout.write(
  `Shop${values.variants ? ' (variants)' : ''}: ${report.shop.listing_pages} listings, ${report.shop.conforming_item_pages} conforming items ` +
    `(${report.shop.item_pages_with_json_ld} with JSON-LD), ${report.shop.deviating_item_pages} deviating; ` +
    `concurrency ${concurrency}, model latency ${latencyMs} ms\n\n${table(reports, verdictsOf)}\n`,
);
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/economy-${new Date().toISOString().replaceAll(':', '-')}.json`;
writeFileSync(file, JSON.stringify(report, null, 2));
process.stdout.write(`\nwritten ${file}\n`);
process.exit(0);
