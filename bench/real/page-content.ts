// Pages of one real template with other content, as a site serves its other recipes: the fields the
// template page shows (found the way the learner finds them: the candidates it derives from the page and
// its expected values) get another recipe's values in the same markup — list items cloned or removed to
// the new list's length, texts spread over the node's own text nodes so its make-up stays — or, for an
// optional field, lose their nodes. The oracle answers the values written.
import { type CheerioAPI, load } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { deriveCandidates } from '../../activities/reading/learned/dom.js';
import { select } from '../../activities/reading/learned/read.js';
import {
  type LearnableField,
  learnableFields,
  normalizeText,
} from '../../activities/reading/learned/values.js';
import type { Candidate } from '../../shared/learned-extractor.js';
import { present, words } from './compare.js';
import { oracle, schemaOf } from './learned-crawl.js';
import { EXPECTED, FIELDS } from './recipe-pages.js';

/** Fields a page of the template may lack (the title and the lists it always shows). */
export const OPTIONAL = ['author', 'description', 'image', 'total_time', 'yields'];
const NUMBER = /-?\d[\d.,\u00a0 ]*\d|-?\d/g;
const SKIP = new Set(['script', 'style', 'noscript', 'template']);
/** Values shorter than this are replaced only where a candidate names their node. */
const LONG = 12;

export interface Template {
  html: string;
  url: string;
  expected: Record<string, unknown>;
  /** Per field the template shows, the learner's candidates for it on the template page. */
  held: Record<string, Candidate[]>;
  /**
   * Shown fields whose value is the site's, not the recipe's: the same on each of its pages, as the site
   * renders them (siteOwn).
   */
  own: string[];
}

const LEARNABLE = new Map((learnableFields(schemaOf().fields) ?? []).map((f) => [f.name, f]));

/**
 * The template: the real page and which of its fields a selector reads as the oracle answers them; `site`,
 * the expected values of the site's real pages (the template's among them).
 */
export function templateOf(
  html: string,
  url: string,
  expected: Record<string, unknown>,
  site: Record<string, unknown>[] = [expected],
): Template {
  const page = { $: load(html), url };
  const data = oracle(expected);
  const held: Record<string, Candidate[]> = {};
  for (const name of FIELDS) {
    let found = deriveCandidates(page, LEARNABLE.get(name) as LearnableField, data[name]);
    // A number shows by chance (an amount of 75 g where the total time is 75 minutes): it is the time only
    // where a label names its node, or the bench would write every page's time into that amount.
    // And where the template's prep time equals its total, the node labelled a total is the total's.
    if (typeof data[name] === 'number') {
      found = found.filter((c) => labelledTime(page, c));
      const totals = found.filter((c) =>
        labelledTime(page, c, { names: TOTAL_WORDS, words: TOTAL_WORDS, hops: 2 }),
      );
      if (totals.length > 0) found = totals;
    }
    if (found.length > 0) held[name] = found;
  }
  const shown = withoutChanceReads(page, held);
  const own = 'author' in shown && siteOwn(page.$, expected.author, site) ? ['author'] : [];
  return { html, url, expected, held: shown, own };
}

/** Words that name a time, in the languages of the pages: whole words, lower-cased. */
const TIME_WORDS =
  /(?:^|[^\p{L}])(?:total|time|times|cook|prep|ready|min|mins|minute|minutes|hr|hrs|hour|hours|h|temps|durée|heure|heures|zeit|dauer|std|stunde|stunden|minuten|tijd|bereidingstijd|uur|tiempo|minutos|tempo|minuti|tid|timer|czas|perc|perces)(?=$|[^\p{L}])/u;
/**
 * The held fields without their candidates that read inside another field's node ("4" for the yield in a
 * description's "Just 4 jars of marmalade", in an ingredient's "4 eggs"), or a node an earlier field reads
 * whole (a description equal to the title): shown by chance, not where the site writes that field; a field
 * left with none is not shown.
 */
function withoutChanceReads(
  page: { $: CheerioAPI; url: string },
  held: Record<string, Candidate[]>,
): Record<string, Candidate[]> {
  const nodes = Object.fromEntries(
    Object.entries(held).map(([name, cs]) => [
      name,
      new Set(cs.flatMap((c) => select(page, c.selector) ?? [])),
    ]),
  );
  const out: Record<string, Candidate[]> = {};
  const names = Object.keys(held);
  for (const [name, cs] of Object.entries(held)) {
    const kept = cs.filter((c) => {
      const part = c.transform.kind === 'affix' || c.transform.kind === 'number';
      const mine = select(page, c.selector) ?? [];
      // A node another field reads whole is that field's where this one is a part of its text; where both
      // read it whole (a description that is the title on this page), the first field's.
      const inOther = (other: string) =>
        other !== name &&
        (part || names.indexOf(other) < names.indexOf(name)) &&
        mine.every((el) => nodes[other]?.has(el));
      return mine.length === 0 || !names.some(inOther);
    });
    if (kept.length > 0) out[name] = kept;
  }
  return out;
}

/** Words and attribute values that name a total (time). */
const TOTAL_WORDS = /total|gesamt|totaal|totale|celkem|razem|insgesamt|összes|ready in/i;
/** Attribute values that name a time (a class `total-time`, `itemprop="totalTime"`, `cooking-duration`). */
const TIME_NAMES = /time|duration|zeit|temps|tijd|tiempo|tempo|dauer/i;

/**
 * Whether a number's node is labelled as a time: its text, or that of one of its nearest ancestors (three;
 * `hops` in all) while short (a label beside it), holds a word naming a time, or their classes, id or naming
 * attributes do.
 */
function labelledTime(
  page: { $: CheerioAPI; url: string },
  c: Candidate,
  label: { names: RegExp; words: RegExp; hops: number } = { names: TIME_NAMES, words: TIME_WORDS, hops: 4 },
): boolean {
  const { $ } = page;
  let node: Element | null = select(page, c.selector)?.[0] ?? null;
  for (
    let hops = 0;
    node && node.type === 'tag' && hops < label.hops;
    hops++, node = node.parent as Element | null
  ) {
    const names = ['class', 'id', 'itemprop', 'property', 'data-testid'].map((a) => node?.attribs[a] ?? '');
    if (label.names.test(names.join(' '))) return true;
    const text = normalizeText($(node).text()).toLowerCase();
    if (text.length > 120) break;
    if (label.words.test(text)) return true;
  }
  return false;
}

/**
 * Whether an author is the site's own (a shop's or magazine's brand, a one-author blog's writer), which
 * its other recipes show as well: every real page of the site names it (two or more), or the site's own
 * header, navigation or footer (not a recipe's) or its og:site_name does. A site does not write another
 * recipe's author into its menu ("Über ALDI SUISSE").
 */
function siteOwn($: CheerioAPI, author: unknown, site: Record<string, unknown>[]): boolean {
  if (typeof author !== 'string' || !words(author)) return false;
  const same = (v: unknown) => typeof v === 'string' && words(v) === words(author);
  if (site.length >= 2 && site.every((e) => same(e.author))) return true;
  if (same($('meta[property="og:site_name"]').attr('content'))) return true;
  const chrome = $('header, nav, footer')
    .toArray()
    .filter((el) => $(el).parents('main, article').length === 0);
  return chrome.some((el) => ` ${words($(el).text())} `.includes(` ${words(author)} `));
}

/**
 * One page of the template: each held field of `values` (test-data keys) written where the template shows
 * it, null removing an optional field's nodes; the expected values are the template's with those written.
 */
export function withContent(
  t: Template,
  values: Record<string, unknown>,
): { html: string; expected: Record<string, unknown> } {
  const $ = load(t.html);
  const page = { $, url: t.url };
  const expected = { ...t.expected };
  // Every target is found before any is changed: cloned items must not move another field's nodes.
  // A number or a short text may show by chance elsewhere (an amount equal to the time): only the first
  // match's node is the field's there.
  const targets = Object.entries(t.held).map(([name, candidates]) => {
    const before = t.expected[EXPECTED[name] as string];
    const short =
      typeof before === 'number' || (typeof before === 'string' && normalizeText(before).length < LONG);
    return {
      name,
      key: EXPECTED[name] as string,
      nodes: (short ? candidates.slice(0, 1) : candidates).map((c) => ({
        c,
        els: select(page, c.selector) ?? [],
      })),
    };
  });
  const done = new Set<AnyNode>();
  // What was written into each node: its text (''), or an attribute. One image may carry the title in its
  // alt and the image in its src, and a node written for one field stays free for another's attribute.
  const wrote = new Map<AnyNode, Set<string>>();
  const mark = (el: AnyNode, what: string) => {
    wrote.set(el, (wrote.get(el) ?? new Set()).add(what));
    done.add(el);
  };
  for (const { name, key, nodes } of targets) {
    if (!(key in values)) continue;
    const before = t.expected[key];
    const after = values[key];
    if (!present(after)) {
      if (!OPTIONAL.includes(name)) continue;
      const others = targets.flatMap((o) => (o.name === name ? [] : o.nodes.flatMap((n) => n.els)));
      for (const { els } of nodes) for (const el of els) $(blockOf($, el, others)).remove();
      replaceLeft($, before, '', done);
      expected[key] = null;
      continue;
    }
    // A list's items may be read twice, by the item and by the paragraph inside it: written once, or the
    // units cloned for one would be cloned again for the other.
    const items: Element[] = [];
    const nested = (el: Element) => items.some((w) => isInside(el, w) || isInside(w, el));
    for (const { c, els } of nodes) {
      const what = c.attr ?? '';
      const fresh = els.filter((el) => !wrote.get(el)?.has(what));
      if (Array.isArray(after) && fresh.some(nested)) continue;
      for (const el of fresh) mark(el, what);
      if (fresh.length === 0) continue;
      if (Array.isArray(after))
        for (const el of writeList($, fresh, c, after.map(String))) {
          mark(el, what);
          items.push(el);
        }
      // A one-value field a page shows twice (a summary card and the recipe card) shows one value in both.
      else for (const el of fresh) write($, el, c, after);
    }
    replaceLeft($, before, after, done);
    expected[key] = Array.isArray(after) ? after.map((l) => normalizeText(String(l))) : after;
    if (typeof after === 'string') expected[key] = normalizeText(after);
  }
  return { html: $.html(), expected };
}

/** Words a field's block may hold besides its value: its label ("Total Time", "mins"). */
const LABEL = 40;

/**
 * The block a missing field's node goes with, as a page without the value is made: the node and the
 * ancestors that hold nothing else than it and a label (no other field's node).
 */
function blockOf($: CheerioAPI, el: Element, others: Element[]): Element {
  const own = normalizeText($(el).text()).length;
  let block = el;
  for (
    let up = block.parent;
    up?.type === 'tag' && !['body', 'html', 'head'].includes(up.name);
    up = up.parent
  ) {
    if (normalizeText($(up).text()).length > own + LABEL) break;
    if (others.some((o) => o === up || $(up).find(o).length > 0)) break;
    block = up;
  }
  return block;
}

/**
 * The element a list repeats for each item: the item node's largest ancestor that holds no other item (a
 * step's `li` where the learner reads the `div` of text inside it; the item itself in a list of one). A site
 * shows a longer list with more of those, not with more texts inside the last one.
 */
function unitOf(items: Element[], item: Element): Element {
  if (items.length < 2) return item;
  const holdsAnother = (el: Element) => items.some((other) => other !== item && isInside(other, el));
  let unit = item;
  while (unit.parent && unit.parent.type === 'tag' && !holdsAnother(unit.parent as Element))
    unit = unit.parent as Element;
  return unit;
}

const isInside = (node: Element, ancestor: Element): boolean => {
  for (let p = node.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
};

/** The node at `item`'s place inside `unit`, found again inside a copy of `unit`. */
function samePlace(unit: Element, item: Element, copy: Element): Element {
  const path: number[] = [];
  for (let n: Element = item; n !== unit; n = n.parent as Element)
    path.unshift((n.parent as Element).children.indexOf(n));
  let at: Element = copy;
  for (const i of path) at = at.children[i] as Element;
  return at;
}

/** A list's item nodes made as many as the lines (the last unit cloned, or the extra removed), then written. */
function writeList($: CheerioAPI, items: Element[], c: Candidate, lines: string[]): Element[] {
  const nodes = [...items];
  while (nodes.length > lines.length && nodes.length > 1) {
    const gone = nodes.pop() as Element;
    $(unitOf(items, gone)).remove();
  }
  while (nodes.length < lines.length) {
    const last = nodes[nodes.length - 1] as Element;
    const unit = unitOf(items, last);
    const copy = $(unit).clone();
    $(unit).after(copy);
    nodes.push(unit === last ? (copy.get(0) as Element) : samePlace(unit, last, copy.get(0) as Element));
  }
  for (const [i, el] of nodes.entries()) write($, el, c, lines[i] as string);
  return nodes;
}

/** The value written into one node as the candidate reads it. */
function write($: CheerioAPI, el: Element, c: Candidate, value: unknown) {
  const text = typeof value === 'number' ? String(value) : normalizeText(String(value));
  const t = c.transform;
  if (c.attr) {
    const raw = el.attribs[c.attr] ?? '';
    el.attribs[c.attr] =
      t.kind === 'number' ? raw.replace(NUMBER, text) : t.kind === 'duration' ? `PT${text}M` : text;
    return;
  }
  if (t.kind === 'exact') return spread($, el, text, '', '');
  if (t.kind === 'duration')
    return spread($, el, spelledLike(normalizeText($(el).text()), Number(value)), '', '');
  if (t.kind === 'affix') return spread($, el, text, t.prefix, t.suffix);
  if (t.kind === 'own') {
    const own = textNodes(el, true);
    own.forEach((n, i) => {
      n.data = i === 0 ? ` ${text} ` : ' ';
    });
    return;
  }
  if (t.kind === 'number') {
    const literal = [...normalizeText($(el).text()).matchAll(NUMBER)][t.index]?.[0];
    const at = literal ? textNodes(el, false).find((n) => n.data.includes(literal)) : undefined;
    if (at && literal) at.data = at.data.replace(literal, text);
  }
}

/**
 * Minutes spelled as the template spells a time, with its unit words ("1 hr 15 mins" → "2 hr 5 mins", "45
 * mins"); "hr" and "mins" where it has none.
 */
function spelledLike(template: string, minutes: number): string {
  const unit = (re: RegExp, fallback: string) => re.exec(template)?.[1] ?? fallback;
  const hours = unit(/\d ?(h\p{L}{0,5}\.?)/iu, 'hr');
  const mins = unit(/\d ?(m\p{L}{0,6}\.?)/iu, 'mins');
  const [h, m] = [Math.floor(minutes / 60), minutes % 60];
  return [h > 0 ? `${h} ${hours}` : '', m > 0 || h === 0 ? `${m} ${mins}` : ''].filter(Boolean).join(' ');
}

/**
 * The text spread over the node's text nodes that hold the value (not those of a fixed prefix or suffix, a
 * checkbox's "▢"), in proportion to theirs, so its child elements stay.
 */
function spread($: CheerioAPI, el: Element, text: string, prefix: string, suffix: string) {
  let nodes = textNodes(el, false).filter((n) => n.data.trim() !== '');
  let lead = normalizeText(prefix);
  let tail = normalizeText(suffix);
  for (let d = normalizeText(nodes[0]?.data ?? ''); lead && d && lead.startsWith(d); ) {
    lead = lead.slice(d.length).trim();
    nodes = nodes.slice(1);
    d = normalizeText(nodes[0]?.data ?? '');
  }
  for (let d = normalizeText(nodes.at(-1)?.data ?? ''); tail && d && tail.endsWith(d); ) {
    tail = tail.slice(0, tail.length - d.length).trim();
    nodes = nodes.slice(0, -1);
    d = normalizeText(nodes.at(-1)?.data ?? '');
  }
  const words = text.split(' ');
  if (nodes.length <= 1 || words.length < nodes.length) {
    const whole = normalizeText(`${lead} ${text} ${tail}`);
    if (nodes.length === 1) (nodes[0] as Text).data = ` ${whole} `;
    else $(el).text(normalizeText(`${prefix} ${text} ${suffix}`));
    return;
  }
  const counts = nodes.map((n) => n.data.trim().split(/\s+/).length);
  const total = counts.reduce((x, y) => x + y, 0);
  let at = 0;
  nodes.forEach((n, i) => {
    const left = nodes.length - i - 1;
    const share = Math.round((counts[i] as number) * (words.length / total));
    const take = left === 0 ? words.length - at : Math.max(1, Math.min(words.length - at - left, share));
    const chunk = words.slice(at, at + take).join(' ');
    n.data = ` ${i === 0 && lead ? `${lead} ` : ''}${chunk}${left === 0 && tail ? ` ${tail}` : ''} `;
    at += take;
  });
}

/** The node's text nodes (own: its own text, not its child elements', text formatting aside). */
function textNodes(el: Element, own: boolean): Text[] {
  const out: Text[] = [];
  const walk = (node: Element) => {
    for (const child of node.children) {
      if (child.type === 'text') out.push(child as Text);
      else if (child.type === 'tag' && !SKIP.has(child.name)) {
        if (!own || ['b', 'i', 'em', 'strong', 'u', 'sup', 'sub', 'mark', 'abbr'].includes(child.name))
          walk(child);
      }
    }
  };
  walk(el);
  return out;
}

/**
 * What the candidates did not name still showing the old value (a breadcrumb, an alt text): replaced; the
 * nodes written (`done`) and what lies in them are left as written.
 */
function replaceLeft($: CheerioAPI, before: unknown, after: unknown, done: Set<AnyNode>) {
  const pairs: [string, string][] = Array.isArray(before)
    ? before.map((l, i) => [normalizeText(String(l)), normalizeText(String((after as unknown[])?.[i] ?? ''))])
    : [
        [
          normalizeText(String(before ?? '')),
          typeof after === 'number' ? String(after) : normalizeText(String(after)),
        ],
      ];
  const long = pairs.filter(([old, next]) => old.length >= LONG && !next.includes(old));
  if (long.length === 0) return;
  const written = (el: Element) => {
    for (let n: AnyNode | null = el; n; n = n.parent) if (done.has(n)) return true;
    return false;
  };
  for (const el of $('*').toArray() as Element[]) {
    if (SKIP.has(el.tagName) || written(el)) continue;
    for (const child of el.children)
      if (child.type === 'text') {
        const data = normalizeText(child.data);
        const hit = long.find(([old]) => data.includes(old));
        if (hit) child.data = ` ${data.replace(hit[0], hit[1])} `;
      }
    for (const [attr, raw] of Object.entries(el.attribs)) {
      const data = normalizeText(raw);
      const hit = long.find(([old]) => data.includes(old));
      if (hit) el.attribs[attr] = data.replace(hit[0], hit[1]);
    }
  }
}
