// merge=true on GET /jobs/{id}/results: many pages' extracted data → one de-duplicated array. Pure, so the
// rules are tested alone.

type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A record that names its page: de-duplicated by that URL rather than by value. */
const urlOf = (value: unknown): string | null =>
  isRecord(value) && typeof value.url === 'string' && value.url.trim() !== '' ? value.url.trim() : null;

const isRecordArray = (value: unknown): value is unknown[] => Array.isArray(value) && value.some(isRecord);

/**
 * The items one page's data contributes: an array gives its items; an object holding arrays of records
 * (`{products: [...]}`) gives those arrays' items, concatenated in field order; an object whose fields are
 * all arrays (`{links: [...]}`, `{products: []}`) gives all their items. Anything else — an object carrying
 * a `url` (a record, whatever it holds), any other object, a scalar — gives itself. No data (a failed or
 * skipped page) gives nothing.
 */
export function mergeItems(data: unknown): unknown[] {
  if (data === null || data === undefined) return [];
  if (Array.isArray(data)) return data;
  if (isRecord(data) && urlOf(data) === null) {
    const values = Object.values(data);
    const recordLists = values.filter(isRecordArray);
    if (recordLists.length > 0) return recordLists.flat();
    if (values.length > 0 && values.every(Array.isArray)) return values.flat();
  }
  return [data];
}

const isEmpty = (value: unknown) =>
  value === null ||
  value === undefined ||
  (typeof value === 'string' && value.trim() === '') ||
  (Array.isArray(value) && value.length === 0) ||
  (isRecord(value) && Object.keys(value).length === 0);

/** How much a record says: its fields holding a value (null, '', [] and {} hold none). */
export const richness = (record: JsonRecord) => Object.values(record).filter((v) => !isEmpty(v)).length;

/** A key equal for equal JSON values, whatever the order of object keys. */
export function canonicalKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
  if (isRecord(value)) {
    const fields = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalKey(value[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Merges the data of a job's pages (in page order) into one array. Records carrying a `url` appear once
 * per URL: the richest of them (most fields holding a value; the earlier one on a tie), at the place where
 * the URL first appeared. Other items appear once per distinct value, at their first place.
 */
export function mergeResults(pageData: readonly unknown[]): unknown[] {
  const merged: unknown[] = [];
  const byUrl = new Map<string, { index: number; richness: number }>();
  const seen = new Set<string>();
  for (const item of pageData.flatMap(mergeItems)) {
    const url = urlOf(item);
    if (url !== null) {
      const score = richness(item as JsonRecord);
      const kept = byUrl.get(url);
      if (!kept) {
        byUrl.set(url, { index: merged.push(item) - 1, richness: score });
      } else if (score > kept.richness) {
        merged[kept.index] = item;
        kept.richness = score;
      }
      continue;
    }
    const key = canonicalKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(item);
  }
  return merged;
}

/**
 * The Refyne product's merged results are one object (API version refyne): the pages' object data merged
 * field by field — a field holding lists on any page gets all their items, merged as above (de-duplicated,
 * records by URL); any other field keeps the first page's value that holds one (null, '', [] and {} hold
 * none). Data that is not an object (a prompt's text, a list) is merged as above under `items`, unless a page
 * has an `items` field of its own, which then takes those too.
 */
export function mergeIntoObject(pageData: readonly unknown[]): JsonRecord {
  const merged: JsonRecord = {};
  const lists = new Map<string, unknown[]>();
  const loose: unknown[] = [];
  for (const data of pageData) {
    if (data === null || data === undefined) continue;
    if (!isRecord(data)) {
      loose.push(data);
      continue;
    }
    for (const [key, value] of Object.entries(data)) {
      if (Array.isArray(value)) lists.set(key, [...(lists.get(key) ?? []), value]);
      else if (!(key in merged) || (isEmpty(merged[key]) && !isEmpty(value))) merged[key] = value;
    }
  }
  if (loose.length > 0) lists.set('items', [...(lists.get('items') ?? []), ...loose.map((d) => [d].flat())]);
  for (const [key, pages] of lists) merged[key] = mergeResults(pages);
  return merged;
}
