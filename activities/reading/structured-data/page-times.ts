// The times a page marks up for its readers: `<time datetime="2023-12-22T22:22:07-0500">Dec 22, 2023</time>`
// in its body, each with whether it is an update's ("Updated", itemprop="dateModified"). Cleaning often drops a
// header's dateline with the rest of the page's chrome, and a relative label ("2 hours ago") hides the date, so
// the attribute is where the visible page states it; it confirms a structured date (dates.ts).
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

export const TIME_LIMITS = { elements: 50, chars: 40, context: 200 } as const;

/** One `<time>` element: its datetime attribute as written, and whether it dates an update. */
export interface PageTime {
  at: string;
  update: boolean;
}

/** Words and names that make a time an update's, in its element or its parent ("Updated", "date-modified"). */
const UPDATE =
  /updat|modif|edited|revised|aktualisiert|geändert|actualiza|actualisé|mis à jour|aggiorna|bijgewerkt|atualiza/i;

export function pageTimes($: CheerioAPI): PageTime[] {
  const found: PageTime[] = [];
  for (const el of ($('body time[datetime]').toArray() as Element[]).slice(0, TIME_LIMITS.elements)) {
    const $el = $(el);
    const at = ($el.attr('datetime') ?? '').trim();
    if (!at || at.length > TIME_LIMITS.chars) continue;
    const marks = [
      $el.attr('itemprop'),
      $el.attr('class'),
      $el.attr('aria-label'),
      $el.parent().attr('class'),
    ];
    const context = $el.parent().text().slice(0, TIME_LIMITS.context);
    found.push({ at, update: [...marks, context].some((m) => m !== undefined && UPDATE.test(m)) });
  }
  return found;
}
