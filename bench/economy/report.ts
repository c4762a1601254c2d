// The bench's verdicts against the economy goals and the printed table (one column per run).
import { FIELDS } from './catalogue.js';
import type { RunReport } from './runs.js';

export const GOALS = {
  max_conforming_item_share_reaching_model: 0.02,
  /** The variant shop (--variants): pages of one template that differ as real ones do. */
  max_variant_item_share_reaching_model: 0.05,
  /** A value answered without the model is never wrong. */
  max_model_free_wrong_values: 0,
  /**
   * Every deviating page caught: answered right, by the model or by an extractor learned for its own layout
   * (a layout several pages share is a template of its own); never by the conforming template's extractor.
   */
  every_deviating_page_caught: true,
  accuracy_equal_to_model_only: true,
  min_pages_per_second: 40,
};

export interface Verdicts {
  conforming_items_reaching_model: number;
  conforming_items_goal_met: boolean;
  deviating_pages_reaching_model: string;
  deviating_goal_met: boolean;
  accuracy_goal_met: boolean;
  pages_per_second_goal_met: boolean;
  model_free_goal_met: boolean;
}

/**
 * The goals for one run. Accuracy is compared with the model-only run of the same invocation; without one,
 * with 1 (the fake model answers every page correctly, so model-only scores 1 when the pipeline loses nothing).
 */
export function verdicts(
  run: RunReport,
  modelOnlyAccuracy: number | null,
  variants = false,
): Verdicts | null {
  if (!run.available || !run.model || !run.accuracy) return null;
  const m = run.model;
  const share = m.pages_by_kind.item === 0 ? 0 : m.pages_reached_by_kind.item / m.pages_by_kind.item;
  const goal = variants
    ? GOALS.max_variant_item_share_reaching_model
    : GOALS.max_conforming_item_share_reaching_model;
  return {
    conforming_items_reaching_model: Math.round(share * 10_000) / 10_000,
    conforming_items_goal_met: share <= goal,
    model_free_goal_met: (run.model_free?.wrong ?? 0) <= GOALS.max_model_free_wrong_values,
    deviating_pages_reaching_model: `${m.pages_reached_by_kind.deviating}/${m.pages_by_kind.deviating}`,
    deviating_goal_met: run.accuracy.deviating_pages.overall >= 1,
    accuracy_goal_met: run.accuracy.all_pages.overall >= (modelOnlyAccuracy ?? 1),
    pages_per_second_goal_met: (run.pages_per_second ?? 0) >= GOALS.min_pages_per_second,
  };
}

const pct = (n: number | undefined) => (n === undefined ? '' : `${(n * 100).toFixed(1)}%`);
const mark = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? ' ✓' : ' ✗');

type Row = [string, (run: RunReport, v: Verdicts | null) => string, string];

const ROWS: Row[] = [
  ['status', (r) => r.status ?? '', ''],
  ['pages done / failed', (r) => `${r.pages_done} / ${r.pages_failed}`, ''],
  ['model calls', (r) => String(r.model?.calls ?? ''), ''],
  [
    '  on conforming item pages',
    (r) =>
      `${r.model?.calls_by_kind.item} (${r.model?.pages_reached_by_kind.item}/${r.model?.pages_by_kind.item} pages)`,
    '',
  ],
  [
    '  on deviating item pages',
    (r) =>
      `${r.model?.calls_by_kind.deviating} (${r.model?.pages_reached_by_kind.deviating}/${r.model?.pages_by_kind.deviating} pages)`,
    '',
  ],
  [
    '  on listing pages',
    (r) =>
      `${r.model?.calls_by_kind.listing} (${r.model?.pages_reached_by_kind.listing}/${r.model?.pages_by_kind.listing} pages)`,
    '',
  ],
  [
    'conforming items reaching model',
    (_r, v) => pct(v?.conforming_items_reaching_model) + mark(v?.conforming_items_goal_met),
    '<= 2% (variants: 5%)',
  ],
  ['learned-extractor documents', (r) => String(r.templates ?? ''), ''],
  [
    'values without model / wrong',
    (r, v) => `${r.model_free?.values} / ${r.model_free?.wrong}${mark(v?.model_free_goal_met)}`,
    '0 wrong',
  ],
  [
    '  precision by field',
    (r) =>
      Object.entries(r.model_free?.by_field ?? {})
        .filter(([, f]) => f.values > 0)
        .map(([name, f]) => `${name} ${f.precision}`)
        .join(', '),
    '',
  ],
  [
    'deviating pages reaching model (goal: all answered right)',
    (_r, v) => (v?.deviating_pages_reaching_model ?? '') + mark(v?.deviating_goal_met),
    'all caught',
  ],
  ['tokens per page (in+out)', (r) => String(r.tokens_per_page ?? ''), ''],
  ['cost USD (job)', (r) => (r.cost_usd === undefined ? '' : r.cost_usd.toFixed(6)), ''],
  [
    'pages/s (job start to end)',
    (r, v) => `${r.pages_per_second}${mark(v?.pages_per_second_goal_met)}`,
    '>= 40',
  ],
  [
    'accuracy, all pages',
    (r, v) => pct(r.accuracy?.all_pages.overall) + mark(v?.accuracy_goal_met),
    '= model-only',
  ],
  ['accuracy, item pages', (r) => pct(r.accuracy?.item_pages.overall), ''],
  ...FIELDS.map((f): Row => [`  ${f}`, (r) => pct(r.accuracy?.item_pages.by_field[f]), '']),
  ['accuracy, deviating pages', (r) => pct(r.accuracy?.deviating_pages.overall), ''],
  ['accuracy, listing pages', (r) => pct(r.accuracy?.listing_pages.overall), ''],
  [
    'pages_by_source',
    (r) =>
      Object.entries(r.pages_by_source ?? {})
        .map(([k, n]) => `${k} ${n}`)
        .join(', '),
    '',
  ],
];

export function table(runs: RunReport[], verdictsOf: (r: RunReport) => Verdicts | null): string {
  const header = ['', ...runs.map((r) => r.run), 'goal'];
  const body = ROWS.map(([label, cell, goal]) => [
    label,
    ...runs.map((r) => (r.available ? cell(r, verdictsOf(r)) : '')),
    goal,
  ]);
  for (const [i, r] of runs.entries()) if (!r.available) (body[0] as string[])[i + 1] = 'not available';
  const rows = [header, ...body];
  const widths = header.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)));
  const lines = rows.map((row) =>
    row
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const notes = runs.filter((r) => r.note).map((r) => `${r.run}: ${r.note}`);
  return [...lines, ...(notes.length ? ['', ...notes] : [])].join('\n');
}
