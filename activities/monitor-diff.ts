// What changed between two runs of a monitor: records matched by page URL or by a key field, compared field by
// field. No I/O of its own (the caller hands over the runs' batches), and bounded: at most MAX_CHANGES_PER_RUN
// records listed, 50 fields per record, values cut.
import { createHash } from 'node:crypto';
import { MAX_CHANGES_PER_RUN } from '../shared/schemas/monitors.js';
import type { FieldChange, RecordEntry } from '../shared/store/monitors.js';

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

/** A run's pages as they are read: batches, from the start each time it is called. */
export type RunBatches = () => AsyncIterable<readonly RunPage[]> | Iterable<readonly RunPage[]>;

interface KeyedRecord {
  key: string;
  url: string;
  record: unknown;
}

/** Every record of a run with its key, in order; the first record of a key wins (later ones are skipped). */
async function* recordsOf(batches: RunBatches, keyField: string | null): AsyncGenerator<KeyedRecord> {
  const seen = new Set<string>();
  for await (const batch of batches()) {
    for (const page of batch) {
      if (page.status !== 'completed') continue;
      const records = pageRecords(page.data, keyField);
      for (let i = 0; i < records.length; i++) {
        const record = records[i];
        const value = keyField && isObject(record) ? record[keyField] : undefined;
        const key = !keyField
          ? page.url
          : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
            ? String(value)
            : `${page.url}#${i}`;
        if (seen.has(key)) continue;
        seen.add(key);
        yield { key, url: page.url, record };
      }
    }
  }
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
 * What fieldChanges compares of a record, as one short string: two records have no field change exactly
 * when their digests are equal (the same leaves by path, a null leaf the same as an absent one).
 */
function digest(record: unknown): string {
  const leaves = new Map<string, unknown>();
  flatten(record, '', leaves, 0);
  const parts = [...leaves]
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([path, value]): [string, string] => [path, JSON.stringify(value)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64');
}

/**
 * The difference from the previous run's pages to this run's. A page that failed in this run hides its records
 * (they are neither removed nor compared): a fetch error is not a change of the site. The runs are read a
 * batch at a time, the previous one twice: what is held across batches is each record's key, URL and digest,
 * and the records listed (at most MAX_CHANGES_PER_RUN), never a whole run.
 */
export async function diffRuns(
  previous: RunBatches,
  current: RunBatches,
  keyField: string | null,
): Promise<RunDiff> {
  const before = new Map<string, { url: string; digest: string }>();
  for await (const { key, url, record } of recordsOf(previous, keyField))
    before.set(key, { url, digest: digest(record) });
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
  const seenNow = new Set<string>();
  const failedNow = new Set<string>();
  // Changed records listed, by key: this run's record, compared field by field once the previous one is read.
  const listedChanges = new Map<string, { entry: RunDiff['changed'][number]; record: unknown }>();
  async function* currentPages() {
    for await (const batch of current()) {
      for (const page of batch) if (page.status !== 'completed') failedNow.add(page.url);
      yield batch;
    }
  }
  for await (const now of recordsOf(currentPages, keyField)) {
    seenNow.add(now.key);
    const then = before.get(now.key);
    if (!then) {
      diff.counts.added++;
      if (room())
        diff.added.push({ key: now.key, url: now.url, record: bounded(now.record, MAX_RECORD_CHARS) });
      continue;
    }
    if (then.digest === digest(now.record)) continue;
    diff.counts.changed++;
    if (room()) {
      const entry = { key: now.key, url: now.url, fields: [] };
      diff.changed.push(entry);
      listedChanges.set(now.key, { entry, record: now.record });
    }
  }
  for await (const then of recordsOf(previous, keyField)) {
    const change = listedChanges.get(then.key);
    if (change)
      change.entry.fields = fieldChanges(then.record, change.record).slice(0, MAX_FIELDS_PER_RECORD);
    if (seenNow.has(then.key) || failedNow.has(then.url)) continue;
    diff.counts.removed++;
    if (room())
      diff.removed.push({ key: then.key, url: then.url, record: bounded(then.record, MAX_RECORD_CHARS) });
  }
  return diff;
}

export const hasChanges = (d: RunDiff) => d.counts.added + d.counts.removed + d.counts.changed > 0;
