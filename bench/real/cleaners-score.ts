// Scores for the real-page cleaner bench: word-level body precision / recall / F1 (bench/cleaners/score.ts),
// the share of the raw page's model tokens sent, and whether the body kept what should be left out: lines of
// at least LEAK_LINE_WORDS words most of whose word triples are neither in the expected body nor in the
// page's title and byline (a related headline, a newsletter prompt, a comment, a footer sentence) making up
// LEAK_PAGE_SHARE or more of the body's words (a stray line in a long article does not count). Figures
// are averaged per site first, so that no site counts twice.
import { mean, median, modelTokens, overlap, words } from '../cleaners/score.js';

export const LEAK_LINE_WORDS = 8;
/** A line with less than this share of its word triples in the reference is not the article's. */
const LEAK_MATCH_SHARE = 0.5;
export const LEAK_PAGE_SHARE = 0.05;

export interface PageScore {
  site: string;
  f1: number;
  precision: number;
  recall: number;
  /** Model tokens sent as a share of the raw HTML's. */
  share: number;
  /** Lines the body kept that are not the article's. */
  leaked: string[];
  /** Those lines' share of the body's words. */
  leakedShare: number;
}

const triples = (tokens: string[]) => tokens.slice(2).map((_, i) => tokens.slice(i, i + 3).join(' '));

/** Lines of `output` not in `reference` (see above). */
export function leakedLines(output: string, reference: string): string[] {
  const known = new Set(triples(words(reference)));
  return output.split('\n').filter((line) => {
    const tokens = words(line);
    if (tokens.length < LEAK_LINE_WORDS) return false;
    const lineTriples = triples(tokens);
    const found = lineTriples.filter((triple) => known.has(triple)).length;
    return found < LEAK_MATCH_SHARE * lineTriples.length;
  });
}

export function scorePage(
  page: { site: string; body: string; metadata: string },
  body: string,
  sent: string,
  rawTokens: number,
): PageScore {
  const leaked = leakedLines(body, `${page.metadata}\n${page.body}`);
  return {
    site: page.site,
    ...overlap(body, page.body),
    share: modelTokens(sent) / rawTokens,
    leaked,
    leakedShare: words(leaked.join('\n')).length / Math.max(1, words(body).length),
  };
}

export interface Summary {
  sites: number;
  pages: number;
  f1: { mean: number; median: number };
  precision: number;
  recall: number;
  share: { median: number; mean: number };
  /** Share of pages (weighted per site) whose body kept what should be left out. */
  leakRate: number;
}

/** Per-site means first, then the mean (and median) over sites. */
export function summarize(scores: PageScore[]): Summary {
  const bySite = new Map<string, PageScore[]>();
  for (const score of scores) bySite.set(score.site, [...(bySite.get(score.site) ?? []), score]);
  const sites = [...bySite.values()];
  const perSite = (of: (score: PageScore) => number) => sites.map((pages) => mean(pages.map(of)));
  const f1 = perSite((s) => s.f1);
  const share = perSite((s) => s.share);
  return {
    sites: sites.length,
    pages: scores.length,
    f1: { mean: mean(f1), median: median(f1) },
    precision: mean(perSite((s) => s.precision)),
    recall: mean(perSite((s) => s.recall)),
    share: { median: median(share), mean: mean(share) },
    leakRate: mean(perSite((s) => (s.leakedShare >= LEAK_PAGE_SHARE ? 1 : 0))),
  };
}
