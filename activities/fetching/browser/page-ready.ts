// When a rendered page may be read. A page that runs scripts may still fetch and change its document after it
// has parsed, so it is given until its network goes quiet (render-page.ts); a page that runs none — no
// <script>, no inline handler such as onload or onerror, no frame (whose scripts may reach the page), no
// <meta http-equiv=refresh> (which navigates) — has its final document as soon as it has parsed, and waiting
// would only hold its browser page.
import type { Page } from 'puppeteer-core';

/** True when the parsed document runs no script; false when it may, or when it could not be asked. */
export async function scriptless(page: Page): Promise<boolean> {
  try {
    return await page.evaluate(() => {
      const d = document;
      if (d.readyState === 'loading') return false;
      if (d.scripts.length > 0) return false;
      if (d.querySelector('iframe, frame, object, embed, meta[http-equiv="refresh" i]')) return false;
      const handlers = d.evaluate(
        'count(//@*[starts-with(name(), "on")])',
        d,
        null,
        XPathResult.NUMBER_TYPE,
        null,
      ).numberValue;
      return handlers === 0;
    });
  } catch {
    return false; // navigating (its context went away) or closed: wait as for a scripted page
  }
}
