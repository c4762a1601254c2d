// Scores one run against the ground truth: field accuracy (per field and overall; on item pages, deviating
// pages and all pages) and which pages reached the model.
import { FIELDS, type PageKind, type PageTruth } from './catalogue.js';
import type { ModelCall } from './fake-model.js';
import type { PageResult } from './stack.js';

/** Numbers within this of the truth are right (prices have cents). */
const NUMBER_TOLERANCE = 0.005;

export interface Accuracy {
  /** Right values / values, over the pages of the group (a page without a completed result: all wrong). */
  overall: number;
  by_field: Record<string, number>;
  pages: number;
  /** Pages with every field right. */
  pages_all_right: number;
}

export interface ModelReach {
  calls: number;
  calls_unknown_page: number;
  /** Calls and distinct pages that reached the model, by page kind. */
  calls_by_kind: Record<PageKind, number>;
  pages_reached_by_kind: Record<PageKind, number>;
  pages_by_kind: Record<PageKind, number>;
  input_tokens: number;
  output_tokens: number;
}

export function sameValue(got: unknown, want: unknown): boolean {
  if (want === null || want === undefined) return got === null || got === undefined;
  if (typeof want === 'number')
    return typeof got === 'number' && Math.abs(got - want) <= NUMBER_TOLERANCE + 1e-9;
  if (typeof want === 'string') return typeof got === 'string' && got.trim() === want.trim();
  return got === want;
}

/** Accuracy over the pages whose kind is in `kinds`. */
export function accuracy(
  truth: Map<string, PageTruth>,
  results: PageResult[],
  kinds: readonly PageKind[],
): Accuracy {
  const byPath = new Map<string, PageResult>();
  for (const r of results) {
    const path = pathOf(r.url);
    // A page may appear twice (a retried page); a completed result wins.
    if (path && (r.status === 'completed' || !byPath.has(path))) byPath.set(path, r);
  }
  const right: Record<string, number> = Object.fromEntries(FIELDS.map((f) => [f, 0]));
  let pages = 0;
  let allRight = 0;
  for (const [path, page] of truth) {
    if (!kinds.includes(page.kind)) continue;
    pages++;
    const result = byPath.get(path);
    const data =
      result?.status === 'completed' && typeof result.data === 'object' && result.data !== null
        ? (result.data as Record<string, unknown>)
        : null;
    let pageRight = 0;
    for (const f of FIELDS) {
      if (data && sameValue(data[f], page.truth[f])) {
        right[f] = (right[f] ?? 0) + 1;
        pageRight++;
      }
    }
    if (pageRight === FIELDS.length) allRight++;
  }
  const share = (n: number) => (pages === 0 ? 0 : round4(n / pages));
  const total = Object.values(right).reduce((a, b) => a + b, 0);
  return {
    overall: pages === 0 ? 0 : round4(total / (pages * FIELDS.length)),
    by_field: Object.fromEntries(FIELDS.map((f) => [f, share(right[f] ?? 0)])),
    pages,
    pages_all_right: allRight,
  };
}

/** Values answered without the model (structured data, a learned extractor), per field: how many, how many wrong. */
export interface ModelFree {
  values: number;
  wrong: number;
  by_field: Record<string, { values: number; wrong: number; precision: number }>;
  /** The first wrong values, to read. */
  examples: { path: string; field: string; source: string; got: unknown; want: unknown }[];
}

export function modelFree(truth: Map<string, PageTruth>, results: PageResult[]): ModelFree {
  const out: ModelFree = { values: 0, wrong: 0, by_field: {}, examples: [] };
  for (const f of FIELDS) out.by_field[f] = { values: 0, wrong: 0, precision: 1 };
  for (const r of results) {
    const path = pathOf(r.url);
    const page = path ? truth.get(path) : undefined;
    if (!page || !path || r.status !== 'completed' || !r.provenance) continue;
    const data = (r.data ?? {}) as Record<string, unknown>;
    for (const f of FIELDS) {
      const source = r.provenance[f]?.source;
      if (!source || source === 'model') continue;
      const field = out.by_field[f] as ModelFree['by_field'][string];
      field.values++;
      out.values++;
      if (sameValue(data[f], page.truth[f])) continue;
      field.wrong++;
      out.wrong++;
      if (out.examples.length < 20)
        out.examples.push({ path, field: f, source, got: data[f], want: page.truth[f] });
    }
  }
  for (const field of Object.values(out.by_field))
    field.precision = field.values === 0 ? 1 : round4(1 - field.wrong / field.values);
  return out;
}

export function modelReach(truth: Map<string, PageTruth>, calls: ModelCall[]): ModelReach {
  const zero = (): Record<PageKind, number> => ({ listing: 0, item: 0, deviating: 0 });
  const reach: ModelReach = {
    calls: calls.length,
    calls_unknown_page: 0,
    calls_by_kind: zero(),
    pages_reached_by_kind: zero(),
    pages_by_kind: zero(),
    input_tokens: 0,
    output_tokens: 0,
  };
  for (const page of truth.values()) reach.pages_by_kind[page.kind]++;
  const seen = new Set<string>();
  for (const call of calls) {
    reach.input_tokens += call.inputTokens;
    reach.output_tokens += call.outputTokens;
    const page = call.path === null ? undefined : truth.get(call.path);
    if (!page || call.path === null) {
      reach.calls_unknown_page++;
      continue;
    }
    reach.calls_by_kind[page.kind]++;
    if (!seen.has(call.path)) reach.pages_reached_by_kind[page.kind]++;
    seen.add(call.path);
  }
  return reach;
}

function pathOf(url: string): string | null {
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
