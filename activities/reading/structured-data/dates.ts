// Dates as structured data states them (ISO 8601: "2024-03-05", "2024-03-05T10:00:00+01:00") and as pages
// show them: "2024-03-05", "March 5, 2024", "5. März 2024", "5 de marzo de 2024", "15/03/2024". A numeric
// day/month spelling counts only when it cannot be read the other way round (day above 12, or day = month):
// "05/03/2024" is 5 March in Europe and 3 May in the United States. A date the page shows only as an update's
// ("Updated on: Dec 22, 2023") confirms a modified date, never a published one. The date must be shown near the
// page's headline (its dateline), not anywhere: the same day's other articles show the same date. A time in UTC may be shown as
// the day before or after (readerDates), and a page's `<time datetime>` elements confirm it too (timeShown).
import type { PageEvidence } from './page-evidence.js';
import { headlineWindow } from './page-lines.js';
import { tokenText } from './text.js';

export interface CalendarDate {
  y: number;
  m: number;
  d: number;
}

/** The calendar date at the start of an ISO 8601 string, as written (no time-zone shift). */
export function dateOf(raw: unknown): CalendarDate | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = raw.trim().match(/^(\d{4})-(\d{2})-(\d{2})(?:$|[T\s])/);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 ? { y, m: mo, d } : undefined;
}

/** Month names (full and short) in English, German, French, Spanish, Italian, Dutch and Portuguese. */
const MONTHS: string[][] = [
  ['january', 'jan', 'januar', 'jänner', 'janvier', 'enero', 'gennaio', 'januari', 'janeiro'],
  ['february', 'feb', 'februar', 'février', 'fevrier', 'febrero', 'febbraio', 'februari', 'fevereiro'],
  ['march', 'mar', 'märz', 'maerz', 'mars', 'marzo', 'maart', 'março'],
  ['april', 'apr', 'avril', 'abril', 'aprile'],
  ['may', 'mai', 'mayo', 'maggio', 'mei', 'maio'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'junho'],
  ['july', 'jul', 'juli', 'juillet', 'julio', 'luglio', 'julho'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'augustus'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'settembre', 'setembro'],
  ['october', 'oct', 'oktober', 'octobre', 'octubre', 'ottobre', 'outubro'],
  ['november', 'nov', 'novembre', 'noviembre', 'novembro'],
  ['december', 'dec', 'dezember', 'décembre', 'decembre', 'diciembre', 'dicembre', 'dezembro'],
];

const pad = (n: number) => String(n).padStart(2, '0');

/** The date's spellings as token phrases (see tokenText). */
export function dateSpellings({ y, m, d }: CalendarDate): string[] {
  const days = [...new Set([String(d), pad(d)])];
  const months = [...new Set([String(m), pad(m)])];
  const out = [`${y} ${pad(m)} ${pad(d)}`, `${y}/${pad(m)}/${pad(d)}`, `${y}.${pad(m)}.${pad(d)}`];
  for (const name of MONTHS[m - 1] ?? [])
    for (const day of days) {
      out.push(`${day} ${name} ${y}`, `${day} de ${name} de ${y}`, `${name} ${day} ${y}`);
      for (const ord of ['st', 'nd', 'rd', 'th', 'er'])
        out.push(`${day} ${ord} ${name} ${y}`, `${name} ${day} ${ord} ${y}`);
    }
  if (d > 12 || d === m)
    for (const day of days)
      for (const month of months)
        for (const [first, second] of [
          [day, month],
          [month, day],
        ])
          out.push(`${first}/${second}/${y}`, `${first}.${second}.${y}`, `${first} ${second} ${y}`);
  return out;
}

/** Words that make the date after them an update's ("Updated on: Dec 22, 2023", "Mis à jour le 5 mars 2024"). */
const UPDATE_WORDS = new Set([
  'updated',
  'update',
  'modified',
  'edited',
  'revised',
  'aktualisiert',
  'geändert',
  'actualizado',
  'actualizada',
  'actualisé',
  'jour',
  'aggiornato',
  'aggiornamento',
  'bijgewerkt',
  'atualizado',
]);

/** Lines read before and after the headline for its dateline ("December 17, 2023 - 22:36", "Published …"). */
const DATELINE = { before: 3, after: 12 } as const;

/**
 * Whether the page shows the date near its headline (an update's date, "Updated: …", only where `updates` says
 * so): the same date in a related article, a comment or a list of the latest news says nothing of this one's.
 * The headline is the first heading line that is one of the page's `h1` texts, else its first heading line,
 * else the top of the page.
 */
export function dateShown(page: PageEvidence, date: CalendarDate, updates = true): boolean {
  const near = nearHeadline(page);
  return dateSpellings(date).some((s) => (updates ? near.includes(` ${s} `) : shownNotAsUpdate(near, s)));
}

/** The tokens of the lines around the page's headline (see dateShown), padded by a space at each end. */
function nearHeadline(page: PageEvidence): string {
  const { lines } = headlineWindow(page.text, page.headings, DATELINE.before, DATELINE.after);
  return ` ${lines.map(tokenText).join(' ')} `;
}

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T\s](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?/i;
const HOUR = 3_600_000;

/** The instant an ISO 8601 time with a zone names (ms), and whether that zone is UTC; none without a zone. */
export function instantOf(raw: unknown): { ms: number; utc: boolean } | undefined {
  const m = typeof raw === 'string' ? raw.trim().match(ISO_TIME) : null;
  const zone = m?.[7];
  if (!m || !zone) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((n) => Number(n ?? 0)) as number[];
  const sign = zone.startsWith('-') ? -1 : 1;
  const offset = /^z$/i.test(zone)
    ? 0
    : sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2))) * 60_000;
  const ms = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s) - offset;
  return Number.isFinite(ms) ? { ms, utc: offset === 0 } : undefined;
}

/**
 * The calendar dates a reader of the page may see for a structured date: the date as written, its zone being
 * the page's; a time in UTC names no reader's zone, so the page may show it as the date of that instant in any
 * zone from UTC-12 to UTC+14 ("2023-12-24T01:06Z" is December 23 in New York).
 */
export function readerDates(raw: unknown): CalendarDate[] {
  const written = dateOf(raw);
  const instant = instantOf(raw);
  if (!written || !instant?.utc) return written ? [written] : [];
  const dates = new Map<string, CalendarDate>();
  for (const hours of [-12, 0, 14]) {
    const at = new Date(instant.ms + hours * HOUR);
    const date = { y: at.getUTCFullYear(), m: at.getUTCMonth() + 1, d: at.getUTCDate() };
    dates.set(`${date.y}-${date.m}-${date.d}`, date);
  }
  return [...dates.values()];
}

/** Whether a second date falls on another day than the first, in every zone a reader may be in. */
export function anotherDay(raw: unknown, other: unknown): boolean {
  if (!dateOf(other)) return false;
  const days = new Set(readerDates(raw).map((d) => `${d.y}-${d.m}-${d.d}`));
  return !readerDates(other).some((d) => days.has(`${d.y}-${d.m}-${d.d}`));
}

/**
 * Whether one of the page's `<time datetime>` elements (an update's only where `updates` says so) states the
 * structured date: the same instant where both carry a zone, else the same date as written in the first one.
 */
export function timeShown(page: PageEvidence, raw: unknown, updates = true): boolean {
  const written = dateOf(raw);
  const instant = instantOf(raw);
  const times = page.times.filter((time) => updates || !time.update);
  return times.some((time, i) => {
    const theirs = instantOf(time.at);
    if (instant && theirs) return Math.abs(instant.ms - theirs.ms) < 60_000;
    // A date without its instant is the page's own only in its first time element (the headline's dateline),
    // not in a list of the day's other articles.
    const date = i === 0 ? dateOf(time.at) : undefined;
    return written !== undefined && date !== undefined && sameDate(date, written);
  });
}

const sameDate = (a: CalendarDate, b: CalendarDate) => a.y === b.y && a.m === b.m && a.d === b.d;

/** A date phrase shown at least once without an update's label in the three words before it. */
function shownNotAsUpdate(text: string, tokens: string): boolean {
  const needle = ` ${tokens} `;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const before = text
      .slice(Math.max(0, at - 80), at)
      .split(' ')
      .slice(-3);
    if (!before.some((w) => UPDATE_WORDS.has(w))) return true;
  }
  return false;
}

const MONTH_NAMES = MONTHS.flat()
  .sort((a, b) => b.length - a.length)
  .join('|');
const MONTH_INDEX = new Map(MONTHS.flatMap((names, i) => names.map((n) => [n, i + 1] as const)));
const ORDINAL = '(?: (?:st|nd|rd|th|er))?';
/**
 * Dates as a line's tokens spell them: "2019/05/02" and "2019.05.02" (one token each; "2019-05-02" is three
 * tokens, as a time's "2019 05:02" is), "may 2 2019", "2 mai 2019", "2 de mayo de 2019".
 */
const SPELLED_DATES = [
  { re: /(?<= )(\d{4})([/.])(\d{1,2})\2(\d{1,2})(?= )/g, y: 1, m: 3, d: 4 },
  { re: new RegExp(`(?<= )(${MONTH_NAMES}) (\\d{1,2})${ORDINAL} (\\d{4})(?= )`, 'g'), y: 3, m: 1, d: 2 },
  {
    re: new RegExp(`(?<= )(\\d{1,2})${ORDINAL} (?:de )?(${MONTH_NAMES}) (?:de )?(\\d{4})(?= )`, 'g'),
    y: 3,
    m: 2,
    d: 1,
  },
];

/** The dates a line (as tokens, padded by a space) shows without an update's label before them. */
function datesIn(line: string): CalendarDate[] {
  const found: CalendarDate[] = [];
  for (const { re, y, m, d } of SPELLED_DATES)
    for (const match of line.matchAll(re)) {
      const month = /^\d/.test(match[m] as string) ? Number(match[m]) : MONTH_INDEX.get(match[m] as string);
      const date = { y: Number(match[y]), m: month ?? 0, d: Number(match[d]) };
      if (date.m < 1 || date.m > 12 || date.d < 1 || date.d > 31) continue;
      const before = line.slice(Math.max(0, (match.index ?? 0) - 80), match.index).split(' ');
      if (!before.slice(-4).some((w) => UPDATE_WORDS.has(w))) found.push(date);
    }
  return found;
}

/**
 * Whether the page's dateline shows another date of publication than the structured one: a date on another
 * day (not an update's) in the lines from the top of the headline's window down to the first line showing
 * the structured date, or, where the text does not show it (a `<time>` element confirmed it), down to the
 * second line after the headline. Which of two dates the page was published on is the model's call; dates in
 * the story below its dateline are not read.
 */
export function otherDateNear(page: PageEvidence, raw: unknown): boolean {
  const ours = readerDates(raw);
  const spelled = ours.flatMap(dateSpellings).map((s) => ` ${s} `);
  const near = headlineWindow(page.text, page.headings, DATELINE.before, DATELINE.after);
  const lines = near.lines.map((l) => ` ${tokenText(l)} `);
  const shownAt = lines.findIndex((l) => spelled.some((s) => l.includes(s)));
  const upto = shownAt >= 0 ? shownAt : near.headline + 2;
  return lines.slice(0, upto + 1).some((l) => datesIn(l).some((d) => !ours.some((o) => sameDate(o, d))));
}
