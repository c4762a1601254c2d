// Numbers as structured data and pages write them: "19.99", "$1,299.00", "19,99 €", "1.234,56", "1 234,56",
// "1'234.50". The last separator followed by one or two digits is the decimal one.

/** 19.99, "19.99", "$1,299.00", "19,99 €"; undefined for anything that is not one number. */
export function numberOf(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string' || raw.length > 100) return undefined;
  const found = raw.match(/-?\d[\d.,'\s]*/g)?.map((s) => s.trim()) ?? [];
  if (found.length !== 1) return undefined;
  // Before and after the number only a currency symbol or code: "BK-17", "PT20M" or "2 pieces" is no number.
  const digits = found[0] as string;
  const at = raw.indexOf(digits);
  const sides = [raw.slice(0, at), raw.slice(at + digits.length)].map((s) => s.trim());
  if (!sides.every((side) => CURRENCY_MARK.test(side))) return undefined;
  return parseDigits(digits);
}

const CURRENCY_MARK = /^(?:[$€£¥₹]|[A-Za-z]{3}|[A-Za-z]{3}\s?[$€£¥₹]|[$€£¥₹]\s?[A-Za-z]{3})?$/;

/** A number's digits with separators: "1,299.00", "1.299,00", "19,99", "1 299", "1'299.50". */
export function parseDigits(s: string): number | undefined {
  const compact = s.replace(/[\s']/g, '').replace(/[.,]$/, '');
  const decimal = compact.match(/[.,](\d{1,2})$/);
  const whole = decimal ? compact.slice(0, -decimal[0].length) : compact;
  if (!/^-?\d[\d.,]*$/.test(whole)) return undefined;
  const n = Number(`${whole.replace(/[.,]/g, '')}${decimal ? `.${decimal[1]}` : ''}`);
  return Number.isFinite(n) ? n : undefined;
}

/** A structured string that is only a number ("88.00", "1299"), which a page may spell another way. */
export const isNumeric = (raw: unknown): boolean =>
  typeof raw === 'number' || (typeof raw === 'string' && /^\s*-?\d+(?:[.,]\d+)?\s*$/.test(raw));

const MAX_NUMBERS = 100_000;

/** Every number a page's text shows, in any of the spellings above. */
export function pageNumbers(text: string): Set<number> {
  const numbers = new Set<number>();
  // Digits with . and , between them; then thousands grouped by spaces or apostrophes ("1 234,56", "1'234").
  for (const re of [/\d[\d.,]*/g, /\d{1,3}(?:[ \u00a0\u202f']\d{3})+(?:[.,]\d{1,2})?(?!\d)/g]) {
    for (const m of text.matchAll(re)) {
      const n = parseDigits(m[0]);
      if (n !== undefined) numbers.add(n);
      if (numbers.size > MAX_NUMBERS) return numbers;
    }
  }
  return numbers;
}

const CODES = 'EUR|USD|GBP|CHF|CAD|AUD|NZD|JPY|INR|SEK|NOK|DKK|PLN|CZK|HUF|RON|BGN|BRL|MXN|ZAR';
const BEFORE = `(?:[$€£¥₹]|R\\$|(?:${CODES}|Fr\\.|CHF)\\s?)`;
const AFTER = `(?:[,.]-)?(?:\\s?(?:[$€£¥₹]|${CODES}|kr|zł|Kč|Ft|lei)(?!\\p{L}))?`;
/** A price as pages write it: an optional currency before, the digits, an optional currency after. */
const PRICE = new RegExp(
  `(${BEFORE}\\s?)?(\\d{1,3}(?:[ \\u00a0\\u202f'.,]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?)(?!\\d)(${AFTER})`,
  'gu',
);

/**
 * How the page spells a price: the first spelling of that number with its currency beside it ("88,00 €",
 * "$1,299.00", "CHF 1'234.50"), else the number as the page first writes it; undefined when it shows none.
 */
export function priceSpelling(text: string, n: number): string | undefined {
  let bare: string | undefined;
  let seen = 0;
  for (const m of text.matchAll(PRICE)) {
    if (++seen > MAX_NUMBERS) break;
    if (parseDigits(m[2] as string) !== n) continue;
    if (m[1] || m[3]) return m[0].replace(/\s+/g, ' ').trim();
    bare ??= m[0];
  }
  return bare;
}
