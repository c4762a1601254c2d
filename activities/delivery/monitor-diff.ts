// What changed between two runs of a monitor: records matched by page URL or by a key field, compared field by
// field. Pure, and bounded: at most MAX_CHANGES_PER_RUN records listed, 50 fields per record, values cut.
import { MAX_CHANGES_PER_RUN } from '../../shared/schemas/monitors.js';
import type { FieldChange, RecordEntry } from '../../shared/store/monitors.js';

export interface RunPage {
  url: string;
  status: string;
  data: unknown;
}

export interface RunDiff {
  counts: { added: number; removed: number; changed: number };
  added: RecordEntry[];
  removed: RecordEntry[];
  changed: { key: string; url: string; fields: FieldChange[] }[];
  omitted: number;
}

const MAX_FIELDS_PER_RECORD = 50;
const MAX_VALUE_CHARS = 2000;
const MAX_RECORD_CHARS = 4000;
const MAX_DEPTH = 6;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as stored in a change: itself, or its JSON cut to `max` characters when larger. */
function bounded(value: unknown, max: number): unknown {
  const json = JSON.stringify(value ?? null);
  return json.length <= max ? (value ?? null) : `${json.slice(0, max)}…`;
}

/** The records of one page: with a key field, the objects its data lists; else the page's data itself. */
function pageRecords(data: unknown, keyField: string | null): unknown[] {
  if (!keyField) return [data];
  if (Array.isArray(data)) return data;
  if (isObject(data)) {
    const lists = Object.values(data).filter(
      (v): v is unknown[] => Array.isArray(v) && v.some((item) => isObject(item)),
    );
    if (lists.length > 0) return lists.flat();
  }
  return [data];
}

/** Every record of a run by its key; the first record of a key wins. */
export function recordsOf(pages: readonly RunPage[], keyField: string | null) {
  const out = new Map<string, { url: string; record: unknown }>();
  for (const page of pages) {
    if (page.status !== 'completed') continue;
    pageRecords(page.data, keyField).forEach((record, i) => {
      const value = keyField && isObject(record) ? record[keyField] : undefined;
      const k = !keyField
        ? page.url
        : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : `${page.url}#${i}`;
      if (!out.has(k)) out.set(k, { url: page.url, record });
    });
  }
  return out;
}

/** Leaves of a record by dotted path (objects descended, lists and scalars compared whole). */
function flatten(value: unknown, path: string, out: Map<string, unknown>, depth: number) {
  if (isObject(value) && depth < MAX_DEPTH && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, path ? `${path}.${k}` : k, out, depth + 1);
  } else {
    out.set(path, value);
  }
}

export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  flatten(before, '', a, 0);
  flatten(after, '', b, 0);
  const changes: FieldChange[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const old = a.get(field) ?? null;
    const now = b.get(field) ?? null;
    if (JSON.stringify(old) === JSON.stringify(now)) continue;
    changes.push({
      field: field || '(value)',
      old: bounded(old, MAX_VALUE_CHARS),
      new: bounded(now, MAX_VALUE_CHARS),
    });
  }
  return changes;
}

/**
 * The difference from the previous run's pages to this run's. A page that failed in this run hides its records
 * (they are neither removed nor compared): a fetch error is not a change of the site.
 */
export function diffRuns(
  previous: readonly RunPage[],
  current: readonly RunPage[],
  keyField: string | null,
): RunDiff {
  const before = recordsOf(previous, keyField);
  const after = recordsOf(current, keyField);
  const failedNow = new Set(current.filter((p) => p.status !== 'completed').map((p) => p.url));
  const diff: RunDiff = {
    counts: { added: 0, removed: 0, changed: 0 },
    added: [],
    removed: [],
    changed: [],
    omitted: 0,
  };
  let listed = 0;
  const room = () => {
    if (listed < MAX_CHANGES_PER_RUN) return ++listed > 0;
    diff.omitted++;
    return false;
  };
  for (const [k, now] of after) {
    const then = before.get(k);
    if (!then) {
      diff.counts.added++;
      if (room()) diff.added.push({ key: k, url: now.url, record: bounded(now.record, MAX_RECORD_CHARS) });
      continue;
    }
    const fields = fieldChanges(then.record, now.record);
    if (fields.length === 0) continue;
    diff.counts.changed++;
    if (room()) diff.changed.push({ key: k, url: now.url, fields: fields.slice(0, MAX_FIELDS_PER_RECORD) });
  }
  for (const [k, then] of before) {
    if (after.has(k) || failedNow.has(then.url)) continue;
    diff.counts.removed++;
    if (room()) diff.removed.push({ key: k, url: then.url, record: bounded(then.record, MAX_RECORD_CHARS) });
  }
  return diff;
}

export const hasChanges = (d: RunDiff) => d.counts.added + d.counts.removed + d.counts.changed > 0;
