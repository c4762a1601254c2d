// Running a chain for a cleaner bench: the output as sent, and the body alone. Body text is scored without
// the title and byline the readability cleaner puts first (its <header>, PAGE_HEADER): expected texts hold
// the body only.
import { load } from 'cheerio';
import { type CleanerStep, runChain } from '../../activities/reading/cleaners/index.js';
import { PAGE_HEADER } from '../../activities/reading/cleaners/readability.js';

/** The step's output without the cleaner's header block; the same string when it has none. */
export function withoutHeader(output: string): string {
  if (!output.includes('<header')) return output;
  const $ = load(output);
  const header = $(PAGE_HEADER);
  if (header.length === 0) return output;
  header.remove();
  return $('body').html() ?? '';
}

/** The chain's output as sent, and the body alone: the run with the header set aside after each step. */
export function runBoth(html: string, chain: CleanerStep[], baseUrl: string): { sent: string; body: string } {
  let sent = html;
  let body = html;
  for (const step of chain) {
    const diverged = body !== sent;
    sent = runChain(sent, [step], { baseUrl });
    body = withoutHeader(diverged ? runChain(body, [step], { baseUrl }) : sent);
  }
  return { sent, body };
}
