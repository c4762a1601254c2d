// bench:real:learned's tables: templates per site (real pages alone, then with their variants), and per
// field the values answered without a model — coverage (of the pages with an expected value, the share
// answered) and precision (of every value answered, including "none" where the page has none, the share right).

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
