// Text as structured data states it and as the page shows it. Structured strings often carry HTML (tags,
// entities, sometimes escaped twice); the page's cleaned text carries markdown. Comparisons are made on word
// tokens, so case, punctuation, spacing and markup do not count, while words and numbers must match in order.
import { Parser } from 'htmlparser2';

const BLOCK = new Set(['br', 'p', 'div', 'li', 'ol', 'ul', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr']);
/** Soft hyphens and zero-width characters: invisible on the page, yet they would split a word. */
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;
const ENTITY = /&(?:#\d+|#x[\da-f]+|[a-z][a-z\d]*);/i;

/** A structured string as plain text: tags taken off (block tags end a line), entities decoded, spaces collapsed. */
export function plainLines(raw: string): string[] {
  let text = raw;
  // Two passes at most: "&amp;#8217;" (escaped twice) is common in JSON-LD made by templates.
  for (let pass = 0; pass < 2 && (/[<]/.test(text) || ENTITY.test(text)); pass++) text = decode(text);
  return text
    .replace(INVISIBLE, '')
    .split(/\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

export const plainText = (raw: string): string => plainLines(raw).join('\n');

function decode(html: string): string {
  let out = '';
  const parser = new Parser(
    {
      ontext: (t) => {
        out += t;
      },
      onopentag: (name) => {
        if (BLOCK.has(name)) out += '\n';
      },
      onclosetag: (name) => {
        if (BLOCK.has(name)) out += '\n';
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out;
}

/** "1½" and "1 ½" alike: a vulgar fraction glued to a whole number is spaced before NFKC splits it. */
const GLUED_FRACTION = /(\d)([¼½¾⅐-⅞])/g;
const TOKEN = /\p{N}+(?:[.,/]\p{N}+)*|[\p{L}\p{M}]+/gu;

/**
 * The words and numbers of a text, lower-cased and joined by single spaces. Numbers keep their inner
 * separators ("1.5", "1/2", "05.03.2024"): "5 tsp" is not shown by "1.5 tsp".
 */
export function tokenText(s: string): string {
  const normal = s
    .replace(INVISIBLE, '')
    .replace(GLUED_FRACTION, '$1 $2')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/⁄/g, '/');
  return (normal.match(TOKEN) ?? []).join(' ');
}

/** Scripts written without spaces between words, where tokens cannot be told apart. */
export const SPACELESS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/** Case and whitespace folded, for substring checks in spaceless scripts. */
export const foldText = (s: string): string => s.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
