// bench:real's tables: per split, one row per field with the pages that have an expected value, and for the
// plain reader and both schema variants the share answered without a model (coverage) and how many of those
// were right (precision); for the variants also "of plain ✓": of the pages where the plain reader is right,
// the share answered without a model too (what structured data states and the page confirms should not go
// to the model). The last row is the model calls per page (a page costs one call when any field of its
// schema is left to the model, which is then asked for those fields only).
import type { Split } from './split.js';

export interface Tally {
  expected: number;
  answered: number;
  right: number;
  /** Pages where the plain reader's value is right (the page's structured data states the value). */
  plainRight: number;
  /** Of those, the pages this variant answered without a model. */
  answeredOfPlainRight: number;
}

export interface PageCount {
  pages: number;
  /** Pages where at least one field of the schema went to the model. */
  modelCalls: number;
}

export interface SplitCounts<V extends string> {
  fields: Record<V, Record<string, Tally>>;
  pages: Record<V, PageCount>;
  /** "page field" of expected values the stored page does not hold (not judged). */
  unjudged: string[];
  /** "page field: why" of expected values corrected to what the page states. */
  corrected: string[];
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);
const prec = (t: Tally) => (t.answered === 0 ? '—' : (t.right / t.answered).toFixed(3));

/** A markdown table for one split (it reads as text in a terminal too). */
export function table<V extends string>(
  split: Split,
  columns: V[],
  fields: string[],
  counts: SplitCounts<V>,
  plainColumn?: V,
): string {
  const anyPages = counts.pages[columns[0] as V].pages;
  // "of plain ✓": of the pages where the plain reader is right, the share answered without a model.
  const cells = (v: V) => (v === plainColumn ? ['cov', 'prec'] : ['cov', 'prec', 'of plain ✓']);
  const head = ['field', 'expected', ...columns.flatMap((v) => cells(v).map((c) => `${v} ${c}`))];
  const rows = fields.map((f) => [
    f,
    String(counts.fields[columns[0] as V][f]?.expected ?? 0),
    ...columns.flatMap((v) => {
      const t = counts.fields[v][f] as Tally;
      const kept = pct(t.answeredOfPlainRight, t.plainRight);
      return [pct(t.answered, t.expected), prec(t), ...(v === plainColumn ? [] : [kept])];
    }),
  ]);
  rows.push([
    'model calls / page',
    String(anyPages),
    ...columns.flatMap((v) => {
      const p = counts.pages[v];
      return [
        p.pages === 0 ? '—' : (p.modelCalls / p.pages).toFixed(3),
        ...cells(v)
          .slice(1)
          .map(() => ''),
      ];
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [
    `${split} split: ${anyPages} pages`,
    '',
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}
