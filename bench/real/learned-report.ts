// bench:real:learned's tables: templates per site (real pages alone, then with their variants), and per
// field the values answered without a model — coverage (of the pages with an expected value, the share
// answered) and precision (of every value answered, including "none" where the page has none, the share right).

import { type Expected, present } from './compare.js';
import { EXPECTED } from './recipe-pages.js';

export interface TemplateTally {
  sites: number;
  pages: number;
  /** URL shapes summed over sites: templates are per shape, so a site has at least one per shape. */
  shapes: number;
  /** Extractor documents summed over sites. */
  templates: number;
  /** Sites with one template per URL shape. */
  oneTemplate: number;
  most: number;
  /** Real pages whose variants were crawled, and those whose variants got more than one template. */
  families: number;
  splitFamilies: number;
}

export interface FieldTally {
  expected: number;
  answered: number;
  right: number;
  /** Answers on pages without an expected value (right when empty). */
  answeredAbsent: number;
}

export type Tallies = Record<string, FieldTally>;
export const talliesOf = (fields: string[]): Tallies =>
  Object.fromEntries(fields.map((f) => [f, { expected: 0, answered: 0, right: 0, answeredAbsent: 0 }]));

/** Scores the values answered without a model against the page's expected values (test-data keys). */
export function scoreFields(
  t: Tallies,
  fields: string[],
  free: Record<string, unknown>,
  expected: Record<string, unknown>,
  same: (field: string, got: unknown, want: Expected) => boolean,
  wrong: (w: { field: string; got: unknown; expected: unknown }) => void,
) {
  for (const field of fields) {
    const want = expected[EXPECTED[field] as string];
    const tally = t[field] as FieldTally;
    if (present(want)) tally.expected++;
    if (!(field in free)) continue;
    const got = free[field];
    const empty = got === null || (Array.isArray(got) && got.length === 0);
    if (present(want)) tally.answered++;
    else tally.answeredAbsent++;
    const right = present(want) ? !empty && same(field, got, want) : empty;
    if (right) tally.right++;
    else wrong({ field, got, expected: want ?? null });
  }
}

/** mulberry32 seeded by a string: a deterministic order (or choice). */
export function seeded(seed: string): () => number {
  let a = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0, 0x811c9dc5);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The items in a deterministic shuffled order (a crawl's order of a site's pages). */
export function shuffled<T>(items: T[], seed: string): T[] {
  const rnd = seeded(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);

function markdown(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export function templateTable(real: TemplateTally, variants: TemplateTally): string {
  const row = (name: string, t: TemplateTally) => [
    name,
    String(t.sites),
    String(t.pages),
    String(t.shapes),
    String(t.templates),
    (t.templates / Math.max(1, t.sites)).toFixed(2),
    String(t.most),
    pct(t.oneTemplate, t.sites),
    t.families === 0 ? '—' : `${t.splitFamilies} / ${t.families}`,
  ];
  return markdown(
    [
      'pages',
      'sites',
      'pages',
      'URL shapes',
      'templates',
      'per site',
      'most',
      'sites: 1 per shape',
      'real pages whose variants split',
    ],
    [row('real', real), ...(variants.sites > 0 ? [row('real + variants', variants)] : [])],
  );
}

export function fieldTable(fields: string[], runs: Record<string, Record<string, FieldTally>>): string {
  const names = Object.keys(runs);
  const head = ['field', ...names.flatMap((n) => [`${n}: expected`, 'coverage', 'precision', 'wrong'])];
  const rows = fields.map((f) => [
    f,
    ...names.flatMap((n) => {
      const t = runs[n]?.[f] as FieldTally;
      const all = t.answered + t.answeredAbsent;
      return [
        String(t.expected),
        pct(t.answered, t.expected),
        all === 0 ? '—' : (t.right / all).toFixed(3),
        String(all - t.right),
      ];
    }),
  ]);
  return markdown(head, rows);
}
