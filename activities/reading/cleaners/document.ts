// The first steps of every HTML cleaner: parse the page as a browser would (cheerio over parse5, so a
// fragment gets its <html>, <head> and <body>), make URLs absolute, drop page noise and remove_selectors
// while sparing keep_selectors, drop page chrome when asked (boilerplate.ts), and drop links or images when
// the options say so.
import { type CheerioAPI, load } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { dropBoilerplate } from './boilerplate.js';
import { dropCaptions } from './captions.js';
import { absolutizeUrls, dropUnusableUrls } from './urls.js';

export interface CleanContext {
  /** The page's final URL, to make relative links and image sources absolute. */
  baseUrl?: string;
  /**
   * The page already parsed (a crawl page shares the parse with link discovery): taken by the first cleaner
   * that reads exactly this HTML, and dropped from the context then, since cleaners change the document.
   */
  parsed?: { html: string; $: CheerioAPI };
}

export interface DocumentOptions {
  remove_selectors: string[];
  keep_selectors: string[];
  include_links?: boolean;
  include_images?: boolean;
  drop_boilerplate?: boolean;
}

/** Never content: removed by every HTML cleaner. <head> takes the title, meta and link tags with it. */
export const NOISE_SELECTOR =
  'head, title, script, style, noscript, template, iframe, object, embed, svg, canvas, link, meta';

/**
 * Removes the elements `selector` matches. An element matching `keep` stays; a removed element's kept
 * descendants stay in its place. With `spareInsideKept`, whatever lies inside a kept element stays too.
 */
export function removeElements($: CheerioAPI, selector: string, keep: string, spareInsideKept: boolean) {
  $.root()
    .find(selector)
    .each((_, element) => {
      const $element = $(element);
      if (keep && (spareInsideKept ? $element.closest(keep) : $element.filter(keep)).length > 0) return;
      const kept = keep
        ? $element.find(keep).filter((_, node) => $(node).parentsUntil($element).filter(keep).length === 0)
        : null;
      if (kept && kept.length > 0) $element.replaceWith(kept);
      else $element.remove();
    });
  // Kept elements hoisted out of <head> now sit beside <body>: move them in.
  $('html').children().not('head, body').prependTo('body');
}

/** Links become their text; images go. */
export function dropLinksAndImages($: CheerioAPI, { links, images }: { links: boolean; images: boolean }) {
  if (links) $('a').replaceWith((_, element) => $(element).contents());
  if (images) $('img, picture').remove();
}

/** A page's <title> longer than this is cut: it is a hint to the readability cleaner, not content. */
const MAX_TITLE_CHARS = 500;

/** `seen.title` receives the page's <title>, which the noise step removes with <head>. */
export function prepareDocument(
  html: string,
  options: DocumentOptions,
  context: CleanContext,
  seen?: { title: string },
): CheerioAPI {
  const $ = context.parsed?.html === html ? context.parsed.$ : load(html);
  context.parsed = undefined;
  const title = $('title').first().text().trim().slice(0, MAX_TITLE_CHARS);
  if (seen) seen.title = title;
  // Before pruning: a <base href> in <head> can move the base URL.
  if (context.baseUrl) absolutizeUrls($, context.baseUrl);
  dropUnusableUrls($);
  const keep = options.keep_selectors.join(', ');
  removeElements($, NOISE_SELECTOR, keep, false);
  if (options.remove_selectors.length > 0) removeElements($, options.remove_selectors.join(', '), keep, true);
  // Before links go: menus are told apart from content by their links.
  if (options.drop_boilerplate) {
    dropBoilerplate($, keep, title);
    // Captions and credits are no more the page's text here than in Readability's pick. Screen-reader text
    // stays: a shop can hide its shown price from screen readers and say it only to them.
    const kept = new Set<AnyNode>(keep ? $('body').find(keep).toArray() : []);
    dropCaptions($, (element) => kept.has(element), { screenReader: false });
  }
  dropLinksAndImages($, { links: options.include_links === false, images: options.include_images === false });
  return $;
}

/** Runs of whitespace in text become one space, except inside <pre> and <textarea>. */
export function collapseWhitespace($: CheerioAPI) {
  // A walk, not a selector: matching "inside <pre>" per element is quadratic on deep pages.
  const stack = $('body').contents().toArray();
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'text') node.data = node.data.replace(/\s+/g, ' ');
    else if (node.type === 'tag' && node.name !== 'pre' && node.name !== 'textarea')
      for (const child of node.children) stack.push(child);
  }
}

export const bodyHtml = ($: CheerioAPI): string => $('body').html() ?? '';
