// "Load more" buttons and infinite scroll: a listing that shows more items in place. Found by the control's
// text, aria-label, id or class (a button) or by infinite-scroll markers (classes, data attributes, a script
// named so), and answered with the page actions that expand the listing, ready to copy into a crawl. Pure.
// Every pattern is anchored or a plain alternation: linear time on whatever the page holds.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { LoadMoreFinding } from '../../../shared/schemas/analyze.js';
import { anchorOf } from './repeated-blocks.js';

const CONTROLS = 'button, a, [role="button"], input[type="button"], input[type="submit"]';
const LOAD_MORE_TEXT =
  /^(load|show|view|see|display) (more|more items|more results|more products|more posts|all)$|^more (results|items|products|posts|articles)$|^mehr (laden|anzeigen)$|^charger plus$|^ver más$|^cargar más$/i;
const LOAD_MORE_NAME = /load[-_]?more|show[-_]?more|more[-_]?(button|results|items|posts)/i;
const SCROLL_MARKER = /infinite[-_]?scroll|endless[-_]?scroll|scroll[-_]?sentinel|load[-_]?on[-_]?scroll/i;
const SCROLL_ATTRS = ['data-infinite-scroll', 'data-infinite', 'data-endless', 'data-scroll-sentinel'];
/** Controls looked at (a page of thousands of links is not read whole). */
const MAX_CONTROLS = 2_000;

const text = ($: CheerioAPI, el: Element) =>
  ($(el).text() || el.attribs.value || '').replace(/\s+/g, ' ').trim().slice(0, 60);

function isLoadMore($: CheerioAPI, el: Element): boolean {
  if (
    el.tagName === 'a' &&
    /^https?:/i.test(el.attribs.href ?? '') &&
    !LOAD_MORE_NAME.test(el.attribs.class ?? '')
  )
    return false; // a link to another page is pagination, not an in-place load
  const label = (el.attribs['aria-label'] ?? '').trim().slice(0, 60);
  return (
    LOAD_MORE_TEXT.test(text($, el)) ||
    LOAD_MORE_TEXT.test(label) ||
    LOAD_MORE_NAME.test(el.attribs.id ?? '') ||
    LOAD_MORE_NAME.test(el.attribs.class ?? '')
  );
}

/**
 * The page's load-more button or infinite-scroll signs, with the actions that expand the listing (the item
 * selector bounds them by max_items when the listing's repeated block is known). Null when there are none.
 */
export function findLoadMore($: CheerioAPI, itemSelector: string | null): LoadMoreFinding | null {
  const items = itemSelector ? { item_selector: itemSelector, max_items: 500 } : {};
  const control = $(CONTROLS)
    .toArray()
    .slice(0, MAX_CONTROLS)
    .find((el) => isLoadMore($, el));
  if (control) {
    const selector = anchorOf(control); // the first element it matches is clicked
    return {
      kind: 'load_more_button',
      selector,
      description: `a "${text($, control) || selector}" button (${selector}) that loads more items in place`,
      actions: [{ kind: 'click', selector, repeat: true, max: 20, wait_after_ms: 1000, ...items }],
    };
  }
  const marker = $('[class], [id], [data-infinite-scroll], [data-infinite], [data-endless], script[src]')
    .toArray()
    .slice(0, MAX_CONTROLS * 5)
    .find(
      (el) =>
        SCROLL_ATTRS.some((a) => el.attribs[a] !== undefined) ||
        SCROLL_MARKER.test(el.attribs.class ?? '') ||
        SCROLL_MARKER.test(el.attribs.id ?? '') ||
        SCROLL_MARKER.test(el.attribs.src ?? ''),
    );
  if (!marker) return null;
  const sign = marker.tagName === 'script' ? `a script ${marker.attribs.src}` : anchorOf(marker);
  return {
    kind: 'infinite_scroll',
    selector: sign,
    description: `infinite scroll (${sign}): more items appear as the page is scrolled`,
    actions: [
      {
        kind: 'scroll',
        to: 'bottom',
        until_no_new_content: true,
        max_scrolls: 20,
        wait_after_ms: 1500,
        ...items,
      },
    ],
  };
}
