// Who a page says it is from and by. The site's own names: what its WebSite, Organization and og:site_name
// entities are called, and its host name's main label; an author or brand stated as the site itself
// ("Plating Pixels" by platingpixels.com, a shop's name as every product's brand) names no person or maker,
// so such a value goes to the model. And the authors its article, page and recipe entities name: where they
// name different people, which one wrote the page is the model's call.
import type { StructuredItem } from '../../../shared/structured-data.js';
import { plainText, tokenText } from './text.js';

const SITE_ENTITIES = new Set(['WebSite', 'Organization', 'Corporation', 'OnlineStore', 'Store']);

/** Letters and digits only, lower case: "Cookies & Cups" and "cookiesandcups" differ, "Krolls Korner" and krollskorner do not. */
export const compact = (s: string): string =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

function hostLabel(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const host = url.match(/^https?:\/\/([^/:?#]+)/i)?.[1]?.toLowerCase();
  const labels = host?.replace(/^www\d?\./, '').split('.') ?? [];
  // The label before the public suffix: "platingpixels" of www.platingpixels.com, "mob" of mob.co.uk.
  const suffix = labels.length > 2 && /^(?:co|com|org|net|gov|ac)$/.test(labels.at(-2) ?? '') ? 3 : 2;
  return labels.at(-suffix);
}

/** A name's compacted spellings: "&" and "+" as they are and as "and" ("Cookies & Cups", cookiesandcups). */
export const spellings = (name: string): string[] =>
  [...new Set([compact(name), compact(name.replace(/[&+]/g, ' and '))])].filter(Boolean);

/** Whether a name is one of the site's names (siteNames) in either spelling. */
export const isSiteName = (site: Set<string>, name: string): boolean =>
  spellings(name).some((n) => site.has(n));

/** The site's names, compacted (see above); the publisher's too. */
export function siteNames(items: StructuredItem[]): Set<string> {
  const names = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string') for (const name of spellings(v)) names.add(name);
  };
  for (const item of items) {
    if (item.source === 'meta') add(item.props.siteName);
    // A site that is a person (a blog's "Person, Organization") is named by that person: no site name.
    const site = item.types.some((t) => SITE_ENTITIES.has(t)) && !item.types.includes('Person');
    if (item.source === 'meta' || site) add(hostLabel(item.props.url));
    if (site) add(item.props.name);
    const publisher = item.props.publisher;
    if (isRecord(publisher) && !typesOf(publisher).includes('Person')) add(publisher.name);
  }
  return names;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const typesOf = (v: Record<string, unknown>): unknown[] => [v['@type']].flat();

/** What the site says of itself (its WebSite's or Organization's description), as tokens: a tagline. */
export function siteTaglines(items: StructuredItem[]): Set<string> {
  const found = items
    .filter((i) => i.types.some((t) => SITE_ENTITIES.has(t)) && typeof i.props.description === 'string')
    .map((i) => tokenText(plainText(i.props.description as string)));
  return new Set(found.filter(Boolean));
}

/** Words naming a site's staff rather than a person ("Redazione", "Food Republic Staff", "admin"). */
export const STAFF =
  /(?<![\p{L}\p{N}])(?:staff|team|editors?|editorial|admin|administrator|webmaster|desk|bureau|correspondents?|redazione|redaktion|rédaction|redacción|redação|redactie|redaksjon|redaktionen|redakce|redakcja|redakcia|redacția|redactia|toimitus|szerkesztőség|equipa|equipo|équipe|squadra)(?![\p{L}\p{N}])/iu;

/** A web address or a domain as the name ("Tennis.com", "https://facebook.com/…"): a site, not a person. */
export const WEB_NAME =
  /https?:|\/|[\p{L}\p{N}]\.(?:com|net|org|co|io|tv|in|uk|de|fr|es|it|nl|au|ca|info|news|me|us)(?![\p{L}\p{N}])/iu;

/** Words of a name of a site: its compacted runs of one to six words (site-names: "Tennis.com" holds "tennis"). */
const MAX_RUN = 6;

/**
 * Whether a name holds one of the site's names as whole words ("Budget Bytes" in "Monti - Budget Bytes",
 * "tennis" in "Tennis.com", "Food Network Kitchen"): the site's byline, not a person's. Names of four
 * letters or more only, so a short host label ("ew", "mob") counts only as the whole name (isSiteName).
 */
export function mentionsSite(site: Set<string>, name: string): boolean {
  const words = name
    .split(/[^\p{L}\p{N}&+]+/u)
    .filter(Boolean)
    .slice(0, 40);
  for (let i = 0; i < words.length; i++)
    for (let j = i + 1; j <= Math.min(words.length, i + MAX_RUN); j++) {
      const run = spellings(words.slice(i, j).join(' '));
      if (run.some((r) => r.length >= 4 && site.has(r))) return true;
    }
  return false;
}

/** Entities whose author is the page's author: an article of any kind, a page, a recipe (not a review or comment). */
const AUTHORED = /^(?:\w*Article|BlogPosting|Recipe|WebPage|ItemPage|HowTo)$/;

/** The names an author property gives: strings (not a profile URL) and entities' names. */
function authorNames(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(authorNames);
  if (typeof v === 'string') return /^https?:/i.test(v) ? [] : [v];
  const name = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).name : undefined;
  return typeof name === 'string' ? [name] : [];
}

/**
 * The people an author meta tag names ("Ann Lee, Bo Chen and Cy Dunn"): a tag holds one string, so it is split
 * at commas, semicolons, "and" and "&"; the site's own name, its staff ("AOL Staff") or a profile's address
 * ("facebook.com/aol") there names no person.
 */
function metaAuthorNames(v: unknown, site: Set<string>): string[] {
  return authorNames(v)
    .flatMap((s) => s.split(/[,;]|\s(?:and|&)\s/i))
    .map((s) => s.replace(/^\s*by\s+/i, '').trim())
    .filter((s) => s !== '' && !isSiteName(site, s) && !STAFF.test(s) && !WEB_NAME.test(s));
}

/**
 * The authors the page's article, page and recipe entities and its author meta tag name, as tokens: where they
 * name someone the answer does not, which people wrote the page is the model's call.
 */
export function authorsOf(items: StructuredItem[], site: Set<string> = new Set()): Set<string> {
  const found = items.flatMap((i) => {
    if (i.source === 'meta') return metaAuthorNames(i.props.author, site);
    return i.types.some((t) => AUTHORED.test(t)) ? authorNames(i.props.author) : [];
  });
  return new Set(found.map((n) => tokenText(plainText(n))).filter(Boolean));
}

/**
 * The people each author meta tag names (article:author, author, parsely-author, …), as tokens, one list per
 * tag that names someone: the page's metadata says who wrote it, and an answer none of them states is the
 * model's call (plausible.ts).
 */
export function metaBylines(items: StructuredItem[], site: Set<string> = new Set()): string[][] {
  const tags = items.flatMap((i) => (i.source === 'meta' ? [i.props.authorTags].flat() : []));
  return tags
    .map((tag) =>
      metaAuthorNames(tag, site)
        .map((n) => tokenText(plainText(n)))
        .filter(Boolean),
    )
    .filter((names) => names.length > 0);
}

/** The publication dates the page's meta tags state (article:published_time, parsely-pub-date, …). */
export const metaPublished = (items: StructuredItem[]): unknown[] =>
  items.flatMap((i) => (i.source === 'meta' ? [i.props.publishedTags ?? []].flat() : []));

/**
 * The publication dates the page's article, page and recipe entities state, in any syntax: where one falls on
 * another day than the answer (a WebPage's date beside the NewsArticle's, a microdata copy), which date the page
 * was published on is the model's call (plausible.ts).
 */
export const entitiesPublished = (items: StructuredItem[]): unknown[] =>
  items.flatMap((i) =>
    i.source !== 'meta' && i.types.some((t) => AUTHORED.test(t)) ? [i.props.datePublished ?? []].flat() : [],
  );
