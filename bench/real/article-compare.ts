// How bench:real judges an article's model-free values against the expected ones, fairly:
// - title: words and numbers in order (case, whitespace, punctuation and Unicode forms aside; compare.ts);
// - author: the same set of people, in any order, a string split at commas, semicolons, "and" and "&", each
//   name by its words, diacritics aside (sites spell "Solcyré" as "Solcyre"); a credential after a comma ("Robert E. Moffit, Ph.D.") is no person;
// - date: the same calendar date in the page's own zone: an ISO date as written (its offset is the page's
//   zone), and a time in UTC ("Z", "+00:00"), which names no zone, on the expected date in any zone from
//   UTC-12 to UTC+14 (the expected dates are the dates the sites show their readers).
import { words } from './compare.js';

const CREDENTIAL = /^(?:ph ?d|md|m d|jr|sr|ii|iii|iv|phd|dr)$/;

/** A list of people as names by their words, credentials left out. */
export function peopleOf(value: unknown): string[] | undefined {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) return undefined;
  return list
    .flatMap((v: string) => v.split(/[,;]|\s+(?:and|&)\s+/i))
    .map((name) => folded(words(name)))
    .filter((n) => n !== '' && !CREDENTIAL.test(n));
}

/** Letters without their diacritics: "Solcyré" and "Solcyre" are one spelling of a name. */
const folded = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '');

const sameSet = (a: string[], b: string[]) => {
  const [x, y] = [new Set(a), new Set(b)];
  return x.size === y.size && [...x].every((n) => y.has(n));
};

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?/;
const DAY = 86_400_000;

/** Whether a stated date or time is on the expected calendar date (YYYY-MM-DD) in the page's zone. */
export function sameDate(got: unknown, expected: string): boolean {
  if (typeof got !== 'string') return false;
  const m = got.trim().match(ISO);
  if (!m) return false;
  if (`${m[1]}-${m[2]}-${m[3]}` === expected) return true;
  const zone = m[7];
  if (!(zone === 'Z' || /^\+00:?00$/.test(zone ?? ''))) return false;
  const instant = Date.UTC(
    +(m[1] as string),
    +(m[2] as string) - 1,
    +(m[3] as string),
    +(m[4] as string),
    +(m[5] as string),
  );
  const start = Date.parse(`${expected}T00:00:00Z`);
  // The expected day begins at UTC+14 (14 h before its UTC start) and ends at UTC-12 (12 h after its UTC end).
  return instant >= start - 14 * 3_600_000 && instant < start + DAY + 12 * 3_600_000;
}

export function sameArticleValue(field: string, got: unknown, expected: unknown): boolean {
  if (field === 'date') return sameDate(got, String(expected));
  if (field === 'author') {
    const [a, b] = [peopleOf(got), peopleOf(expected)];
    return a !== undefined && b !== undefined && a.length > 0 && sameSet(a, b);
  }
  return typeof got === 'string' && words(got) === words(String(expected));
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** A date's usual spellings as words: ISO, month names (full and short) in either order, numbers. */
function spellings(iso: string): string[] {
  const [y, m, d] = iso.split('-') as [string, string, string];
  const month = MONTHS[Number(m) - 1] as string;
  const days = [...new Set([d, String(Number(d))])];
  const numeric = [`${y} ${m} ${d}`, `${y}/${m}/${d}`, `${m}/${d}/${y}`, `${d}/${m}/${y}`, `${d}.${m}.${y}`];
  const named = days.flatMap((day) =>
    [month, month.slice(0, 3)].flatMap((name) => [`${name} ${day} ${y}`, `${day} ${name} ${y}`]),
  );
  return [...numeric, ...named];
}

const shift = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T12:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/**
 * Whether the stored page holds an expected value anywhere (its text, scripts and meta tags), in any usual
 * spelling (a date also as the day before or after: another zone's reading). Where it does not, the value was
 * taken from another version of the page than the one stored (a year off by one, the next day's edition of a
 * title) and cannot be read from this one: the field is not judged on that page, for any reader.
 */
export function onPage(haystack: string, field: string, expected: unknown): boolean {
  const has = (phrase: string) => phrase !== '' && haystack.includes(` ${phrase} `);
  if (field === 'date') {
    const iso = String(expected);
    return [iso, shift(iso, -1), shift(iso, 1)].flatMap(spellings).some((s) => has(words(s)));
  }
  if (field === 'author') return (peopleOf(expected) ?? []).every((name) => has(folded(name)));
  return has(words(String(expected)));
}

/** A page's words for onPage: its text, scripts and meta tags, diacritics folded. */
export const pageWords = (text: string) => ` ${folded(words(text))} `;
