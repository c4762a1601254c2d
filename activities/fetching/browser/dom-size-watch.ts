// Measures a rendering page's DOM and its script heap every DOM_CHECK_MS, so a script that keeps appending to
// the document, or piles up memory it never puts there, is stopped while it grows, not after: the page is only
// measured exactly when it is read (page.content()), and a page that never goes network-idle would grow for
// the whole wait before that.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'puppeteer-core';
import type { CategorizedError } from '../../../shared/errors.js';
import { scriptHeapTooLarge, tooLarge } from './navigation-errors.js';

export const DOM_CHECK_MS = 200;
/**
 * How much JavaScript heap a page may use while rendering: 16 × the page size limit, at least 256 MiB
 * (heavy single-page apps use 50–150 MB; a page hoarding memory it never shows is stopped well before the
 * renderer would run out).
 */
export function scriptHeapBudget(maxBytes: number): number {
  return Math.max(maxBytes * 16, 256 * 1024 * 1024);
}

/**
 * Starts watching; the returned function stops. `onTooLarge` gets the first measurement over maxBytes (the
 * serialised document's length in UTF-16 units, a lower bound of its UTF-8 bytes). A page too busy to answer
 * is left to the render's overall deadline.
 */
export function watchDomSize(
  page: Page,
  maxBytes: number,
  onTooLarge: (err: CategorizedError) => void,
): () => void {
  const stop = new AbortController();
  const loop = async () => {
    while (!stop.signal.aborted) {
      await sleep(DOM_CHECK_MS, undefined, { signal: stop.signal });
      const size = await page.evaluate(() => document.documentElement?.outerHTML.length ?? 0).catch(() => 0); // navigating (context destroyed) or closed: measured next time, or stopped
      if (size > maxBytes) {
        onTooLarge(tooLarge(maxBytes, { renderedBytes: size, while: 'rendering' }));
        return;
      }
      const heap = (await page.metrics().catch(() => undefined))?.JSHeapUsedSize ?? 0;
      if (heap > scriptHeapBudget(maxBytes)) {
        onTooLarge(scriptHeapTooLarge(scriptHeapBudget(maxBytes), heap));
        return;
      }
    }
  };
  loop().catch(() => undefined); // the abort of the sleep
  return () => stop.abort();
}
