// Which fetch mode a site needs, from evidence: the same page fetched statically and rendered in the browser.
// Dynamic only when the rendered page shows materially more content. Pure.
import type { ResolvedFetchMode } from '../../shared/schemas/common.js';

export interface FetchEvidence {
  /** Visible text characters. */
  textLength: number;
  /** Members of the main repeated block. */
  items: number;
  /** Why the static page's content is missing (app shell, empty body, noscript wall), if it is. */
  scriptNeed: string | null;
}

/** More text than this share of the static page, plus a margin, counts as material. */
const TEXT_RATIO = 1.5;
const TEXT_MARGIN = 200;
const ITEM_MARGIN = 3;

export function recommendFetchMode(
  staticPage: FetchEvidence,
  rendered: FetchEvidence | null,
): { mode: ResolvedFetchMode; reason: string } {
  if (!rendered) {
    return staticPage.scriptNeed && staticPage.scriptNeed !== 'script_shell'
      ? { mode: 'dynamic', reason: `the static page needs scripts (${staticPage.scriptNeed})` }
      : { mode: 'static', reason: 'the static page shows the content' };
  }
  if (rendered.textLength >= staticPage.textLength * TEXT_RATIO + TEXT_MARGIN) {
    return {
      mode: 'dynamic',
      reason: `the rendered page shows ${rendered.textLength} characters of text, the static page ${staticPage.textLength}`,
    };
  }
  if (rendered.items >= staticPage.items + ITEM_MARGIN && rendered.items >= staticPage.items * TEXT_RATIO) {
    return {
      mode: 'dynamic',
      reason: `the rendered page shows ${rendered.items} repeated items, the static page ${staticPage.items}`,
    };
  }
  return { mode: 'static', reason: 'the static page shows as much content as the rendered one' };
}
