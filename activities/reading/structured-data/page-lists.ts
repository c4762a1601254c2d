// Whether the page shows a structured list (a recipe's ingredients or steps) as it is: each item a whole line
// of the page, in order, one block. An item cut short, without its amount or without the page's note is no
// whole line ("LANDFREUDE Eier" in "4 LANDFREUDE Eier"; "4 medium-sized tart" in "4 medium-sized tart firm
// apples"; "1 tbsp rum" in "1 tbsp rum (optional)"). A list with items missing shows long lines between its
// items (steps the structured data left out, or only the steps' titles); a list that is part of a longer one
// on the page has list items right before or after it (the structured data describing a side recipe).
import { type PageEvidence, showsText } from './page-evidence.js';
import { lineTokens, type PageLine } from './page-lines.js';
import { SPACELESS } from './text.js';

/** Lines between two items that are no missing item: a heading, "Step 3", a caption of a few words. */
const MAX_GAP_WORDS = 6;
const MAX_GAP_LINES = 3;

/** Whether the page shows these items as one block of whole lines. */
export function showsList(page: PageEvidence, items: string[]): boolean {
  if (items.some((i) => SPACELESS.test(i))) return items.every((i) => showsText(page, i));
  const wanted = items.map(lineTokens);
  if (wanted.some((w) => !w || !page.lines.includes(`\n${w}\n`))) return false;
  return inBlock(page.lineList, wanted);
}

/**
 * Ingredients: each item a whole line of the page whose words may stand in another order ("Farine 200 g"
 * for "200 g farine": a card putting the amount after the name), the lines one block in order.
 */
export function showsIngredients(page: PageEvidence, items: string[]): boolean {
  if (showsList(page, items) || items.some((i) => SPACELESS.test(i))) return true;
  const wanted = items.map((i) => bag(lineTokens(i)));
  if (wanted.some((w) => !w)) return false;
  return inBlock(
    page.lineList.map((l) => ({ ...l, tokens: bag(l.tokens) })),
    wanted,
  );
}

/** A line's words in a fixed order. */
const bag = (tokens: string) => tokens.split(' ').sort().join(' ');

function inBlock(lines: PageLine[], wanted: string[]): boolean {
  for (let start = 0; start < lines.length; start++)
    if (lines[start]?.tokens === wanted[0] && blockFrom(lines, start, wanted)) return true;
  return false;
}

function blockFrom(lines: PageLine[], start: number, wanted: string[]): boolean {
  let at = start;
  for (const item of wanted.slice(1)) {
    let next = at + 1;
    while (next < lines.length && lines[next]?.tokens !== item) {
      if (next - at > MAX_GAP_LINES || (lines[next]?.tokens.split(' ').length ?? 0) > MAX_GAP_WORDS)
        return false;
      next++;
    }
    if (next >= lines.length) return false;
    at = next;
  }
  const [first, last, after] = [lines[start], lines[at], lines[at + 1]];
  const continued = (a?: PageLine, b?: PageLine) => !!a?.item && !!b?.item && !!b.joined;
  return !continued(lines[start - 1], first) && !continued(last, after);
}
