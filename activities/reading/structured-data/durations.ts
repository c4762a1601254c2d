// Durations (a recipe's totalTime, prepTime, cookTime): ISO 8601 in structured data ("PT1H30M"), spelled out
// on the page ("1 hr 30 mins", "90 minutes", "1 h 30", "1 Std. 30 Min."). A recipe page shows several times,
// so a time does not count where the nearest time label before it is another one ("Cook Time 45 mins" shows
// no total of 45). A number field gets minutes unless its name or
// description names another unit; a string field gets an English spelling ("1 hour 30 minutes").
import type { PageEvidence } from './page-evidence.js';
import { tokenText } from './text.js';

export type TimeLabel = 'total' | 'prep' | 'cook';

/** Minutes in an ISO 8601 duration ("PT1H30M", "P0DT0H45M", "PT90M") or a spelled one ("1 hour 30 mins"). */
export function minutesOf(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || raw.length > 60) return undefined;
  const v = raw.trim().toLowerCase();
  // Lenient where sites are: "P1H" and "P2H30M" (no T), "PT0D4H45M" (days after the T).
  const iso = v.match(/^pt?(?:(\d+)d)?t?(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+)s)?$/);
  if (iso) {
    if (!iso.slice(1).some(Boolean)) return undefined;
    const minutes = Number(iso[1] ?? 0) * 1440 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0);
    const whole = Math.round(minutes + Number(iso[4] ?? 0) / 60);
    return Math.abs(whole - minutes - Number(iso[4] ?? 0) / 60) < 1e-9 ? whole : undefined;
  }
  const spelled = tokenText(v).match(SPELLED);
  if (!spelled?.groups) return undefined;
  const { h, m, only } = spelled.groups;
  return only !== undefined ? Number(only) : Number(h) * 60 + Number(m ?? 0);
}

const HOURS = '(?:h|hr|hrs|hour|hours|std|stunde|stunden|heure|heures|hora|horas|ora|ore|uur|timer)';
const MINUTES = '(?:m|min|mins|minute|minutes|minuten|minuto|minutos|minuti|minuut|minutter|minut|minuter)';
const AND = '(?:(?:and|und|et|y|e|en|og|och) )?';
const SPELLED = new RegExp(
  `^(?:(?<h>\\d+) ${HOURS}(?: ${AND}(?<m>\\d+)(?: ${MINUTES})?)?|(?<only>\\d+) ${MINUTES})$`,
);

/** "1 hour 30 minutes", "45 minutes", "2 hours". */
export function spellMinutes(total: number): string {
  const [h, m] = [Math.floor(total / 60), total % 60];
  const parts = [
    ...(h > 0 ? [`${h} hour${h === 1 ? '' : 's'}`] : []),
    ...(m > 0 || h === 0 ? [`${m} minute${m === 1 ? '' : 's'}`] : []),
  ];
  return parts.join(' ');
}

/** Minutes in the unit a number field names ("cook_time_hours", "duration in seconds"); minutes by default. */
export function inFieldUnit(minutes: number, fieldWords: string): number {
  if (/hour|hrs|\bh\b/i.test(fieldWords)) return minutes / 60;
  if (/second|secs|\bs\b/i.test(fieldWords)) return minutes * 60;
  return minutes;
}

const LABELS: Record<TimeLabel, string[]> = {
  total: [
    'total',
    'ready in',
    'gesamt',
    'gesamtzeit',
    'insgesamt',
    'totale',
    'totaal',
    'totale tijd',
    'i alt',
  ],
  prep: [
    'prep',
    'preparation',
    'vorbereitung',
    'vorbereitungszeit',
    'zubereitung',
    'zubereitungszeit',
    'arbeitszeit',
    'préparation',
    'preparación',
    'preparazione',
    'voorbereiding',
    'bereiding',
    'bereidingstijd',
    'preparo',
    'hands on',
    'active',
  ],
  cook: [
    'cook',
    'cooking',
    'bake',
    'baking',
    'koch',
    'kochzeit',
    'backzeit',
    'garzeit',
    'cuisson',
    'cocción',
    'coccion',
    'cottura',
    'kooktijd',
    'baktijd',
    'oventijd',
    'cozimento',
  ],
};

const LABEL_OF = new Map(
  Object.entries(LABELS).flatMap(([kind, words]) => words.map((w) => [tokenText(w), kind as TimeLabel])),
);
const ANY_LABEL = new RegExp(
  `(?<= )(?:${[...LABEL_OF.keys()].sort((a, b) => b.length - a.length).join('|')})(?= )`,
  'g',
);
/** How far before a time its label may stand (in the token text). */
const LABEL_WINDOW = 60;

/** The page's spellings of a number of minutes, as one pattern over the token text. */
function spellings(total: number): RegExp {
  const [h, m] = [Math.floor(total / 60), total % 60];
  const forms = [`${total} ${MINUTES}`];
  if (h > 0 && m === 0) forms.push(`${h} ${HOURS}(?! ${AND}\\d)`);
  // Recipe cards often spell a unit twice for screen readers: "1 hour hr 10 minutes mins".
  if (h > 0 && m > 0) forms.push(`${h} ${HOURS}(?: ${HOURS})? ${AND}${m}(?: ${MINUTES})?`);
  // Not the minutes of a longer time: "30 minutes" in "1 hour 30 minutes" is no 30.
  return new RegExp(`(?<= )(?<!\\d ${HOURS} (?:${HOURS} )?${AND})(?:${forms.join('|')})(?= )`, 'g');
}

const ANY_TIME = new RegExp(
  `(?<= )(?:(?<h>\\d+) ${HOURS}(?: ${HOURS})?(?: ${AND}(?<m>\\d+)(?! \\d)(?: ${MINUTES})?)?|(?<only>\\d+) ${MINUTES})(?= )`,
  'g',
);

/** The times the page shows under a label (the nearest time label before them), in minutes. */
export function timesUnder(page: PageEvidence, label: TimeLabel): number[] {
  const found: number[] = [];
  for (const m of page.tokens.matchAll(ANY_TIME)) {
    const before = page.tokens.slice(Math.max(0, m.index - LABEL_WINDOW), m.index);
    if (LABEL_OF.get([...before.matchAll(ANY_LABEL)].at(-1)?.[0] ?? '') !== label) continue;
    const { h, m: min, only } = m.groups ?? {};
    found.push(only !== undefined ? Number(only) : Number(h) * 60 + Number(min ?? 0));
  }
  return found;
}

/**
 * Whether the page shows this time. With a label, not where the nearest time label before it is another
 * one: "Prep Time 45 mins" does not show a total of 45; "Total Time 45 mins" and a bare "45 mins" do.
 */
export function durationShown(page: PageEvidence, minutes: number, label: TimeLabel | undefined): boolean {
  if (!(minutes > 0)) return false;
  for (const m of page.tokens.matchAll(spellings(minutes))) {
    if (!label) return true;
    const before = page.tokens.slice(Math.max(0, m.index - LABEL_WINDOW), m.index);
    const nearest = [...before.matchAll(ANY_LABEL)].at(-1)?.[0];
    if (nearest === undefined || LABEL_OF.get(nearest) === label) return true;
  }
  return false;
}
