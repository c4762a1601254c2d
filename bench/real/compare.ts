// How bench:real judges a model-free value against the expected one, fairly. Case, whitespace, punctuation,
// Unicode forms, invisible characters (soft hyphens), fraction spellings and step numbers ("1.", "Step 1:") do not count (words and numbers must
// match in order); times are
// compared in minutes; a list answered as one string is split at its line breaks; a yield by its number (or
// a range holding it): the expected yields rewrite units ("8 twice-baked potatoes" is "8 servings" there). Two presentation choices do not count either: headings
// (a list line of at most 8 words) that one side has and the other lacks — the expected instructions keep
// step and section titles on some sites and not on others — and an answer naming several authors whose
// first is the expected one (the expected values keep the first author only).

export type Expected = string | number | string[];

/** Words and numbers, lower-cased, fractions as "1/2", joined by single spaces. */
export function words(s: string): string {
  const normal = s
    .replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, '')
    .replace(/(\d)([¼½¾⅐-⅞])/g, '$1 $2')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/⁄/g, '/');
  return (normal.match(/\p{N}+(?:[.,/]\p{N}+)*|[\p{L}\p{M}]+/gu) ?? []).join(' ');
}

/** Minutes in "PT1H30M", "1 hour 30 minutes", "90 minutes", "1 h 30 min", 45. */
export function minutesOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase();
  const iso = v.match(/^p(?:(\d+)d)?(?:t(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?)?$/);
  if (iso) return Math.round(Number(iso[1] ?? 0) * 1440 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0));
  if (/^\d+$/.test(v)) return Number(v);
  const hours = v.match(/(\d+(?:[.,]\d+)?)\s*(?:h|hr|hrs|hours?)\b/);
  const minutes = v.match(/(\d+)\s*(?:m|min|mins|minutes?)\b/);
  if (!hours && !minutes) return undefined;
  return Math.round(Number((hours?.[1] ?? '0').replace(',', '.')) * 60 + Number(minutes?.[1] ?? 0));
}

/** A yield's number, or the two ends of a range ("4 to 6 servings", "11-12 cookies", "serves 4-6"). */
function yieldNumbers(s: string): string[] {
  const m = words(s).match(/(\d+(?:[.,/]\d+)?)(?: (?:(?:up )?to|or|bis|a|à|tot) )?(?: ?(\d+(?:[.,/]\d+)?))?/);
  return m ? [m[1], m[2]].filter((n): n is string => n !== undefined) : [];
}

const isHeading = (line: string) => line.split(' ').length <= 8;

/** Two lists of lines as compared: without the headings only one of them has. */
function comparedLines(got: string[], expected: string[]): [string[], string[]] {
  const line = (l: string) => words(l.replace(/^\s*(?:step \d+:?|\d+[.):])\s*/i, ''));
  const [g, e] = [got.map(line).filter(Boolean), expected.map(line).filter(Boolean)];
  const keep = (lines: string[], other: string[]) => lines.filter((l) => !isHeading(l) || other.includes(l));
  return [keep(g, e), keep(e, g)];
}

function sameLines(got: string[], expected: string[]): boolean {
  const [a, b] = comparedLines(got, expected);
  return a.length === b.length && a.every((l, i) => l === b[i]);
}

/** For a wrong list, where it first differs (as compared): the item's number and both lines. */
export function firstDifference(got: unknown, expected: unknown): string | undefined {
  const lines = typeof got === 'string' ? got.split('\n') : got;
  if (!Array.isArray(lines) || !Array.isArray(expected)) return undefined;
  const [a, b] = comparedLines(lines.map(String), expected.map(String));
  const i = a.findIndex((l, n) => l !== b[n]);
  const at = i < 0 ? a.length : i;
  return `item ${at + 1} of ${a.length} (expected ${b.length}): ${JSON.stringify(a[at] ?? null)} vs ${JSON.stringify(b[at] ?? null)}`;
}

/** Whether a model-free value equals the expected one for a field. */
export function same(field: string, got: unknown, expected: Expected): boolean {
  if (field === 'total_time') return minutesOf(got) === minutesOf(expected);
  if (Array.isArray(expected)) {
    const lines = typeof got === 'string' ? got.split('\n') : got;
    return Array.isArray(lines) && lines.every((l) => typeof l === 'string') && sameLines(lines, expected);
  }
  if (typeof got !== 'string') return false;
  if (field === 'yields') return yieldNumbers(got).includes(yieldNumbers(String(expected))[0] ?? '');
  if (field === 'author')
    return [got, got.split(', ')[0] ?? ''].some((g) => words(g) === words(String(expected)));
  if (field === 'image') return sameImage(got, String(expected));
  return words(got) === words(String(expected));
}

/**
 * One photo: the same host and file name once a CDN's host prefix, a query and a WordPress size suffix
 * ("-500x500", "-scaled") are left out; the folders between may name a rendition ("1x1/", a resizer's
 * filters), the file name names the photo.
 */
function sameImage(a: string, b: string): boolean {
  const file = (u: string) => {
    const path = u
      .replace(/^https?:\/\/i\d\.wp\.com\//, 'https://')
      .replace(/[?#].*$/, '')
      .replace(/-(?:\d+x\d+|scaled)(\.\w+)$/, '$1')
      .replace(/^https?:\/\/(www\.)?/, '');
    return `${path.split('/')[0]} ${path.split('/').at(-1)}`;
  };
  return file(a) === file(b);
}

/** An expected value worth judging against: present and not empty. */
export function present(value: unknown): value is Expected {
  if (Array.isArray(value)) return value.some((v) => typeof v === 'string' && v.trim() !== '');
  if (typeof value === 'string') return value.trim() !== '';
  return typeof value === 'number' && value > 0;
}
