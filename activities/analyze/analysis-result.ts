// Assembling the analysis from the structure, the fetch comparison, the model's answer and, at
// depth 1, what the sampled linked pages turned out to be. Pure.
import { type AnalysisResult, PAGE_TYPES } from '../../shared/schemas/analyze.js';
import type { ResolvedFetchMode } from '../../shared/schemas/common.js';
import type { PatternDraft } from '../reading/page-structure/link-patterns.js';
import type { PageStructure } from '../reading/page-structure/page-structure.js';
import type { PageType } from '../reading/page-structure/page-type.js';
import type { LinkClass } from './classify-links.js';

/** The model's page type when it names one of the enum, else the structure's guess. */
export function chosenPageType(answer: unknown, guess: PageType): PageType {
  const value =
    typeof answer === 'string'
      ? answer
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, '_')
      : '';
  return (PAGE_TYPES as readonly string[]).includes(value) ? (value as PageType) : guess;
}

/** A summary from the structure alone, when the model gave none. */
export function structureSummary(structure: PageStructure, pageType: PageType): string {
  const host = new URL(structure.url).host;
  const counted = structure.elements
    .slice(0, 4)
    .map((e) => `${e.count} ${e.name}`)
    .join(', ');
  const title = structure.title ? `"${structure.title}"` : 'An untitled page';
  return `${title} on ${host}: a ${pageType.replace('_', ' ')} page${counted ? ` with ${counted}` : ''}.`;
}

/** Pattern descriptions with what their sampled pages were, e.g. "leads to detail pages (2 of 2 sampled)". */
export function followPatterns(
  patterns: PatternDraft[],
  classes: LinkClass[],
): AnalysisResult['follow_patterns'] {
  return patterns.map((p) => {
    const sampled = classes.filter((c) => c.pattern === p.pattern && c.kind !== 'failed');
    const { pattern, sample_urls } = p;
    if (sampled.length === 0) return { pattern, description: p.description, sample_urls };
    const details = sampled.filter((c) => c.kind === 'detail');
    const listings = sampled.filter((c) => c.kind === 'listing');
    const types = [...new Set(sampled.map((c) => c.pageType))].join(', ');
    const of = `of ${sampled.length} sampled, page type ${types}`;
    const verdict =
      details.length * 2 > sampled.length
        ? `leads to detail pages (${details.length} ${of})`
        : listings.length * 2 > sampled.length
          ? `leads to listing pages (${listings.length} ${of})`
          : `leads to other pages (${of})`;
    return { pattern, description: `${p.description}; ${verdict}`, sample_urls };
  });
}

export interface AnalysisParts {
  structure: PageStructure;
  pageType: PageType;
  siteSummary: string;
  suggestedSchema: string;
  recommendedFetchMode: ResolvedFetchMode;
  classes: LinkClass[];
}

export function composeAnalysis(parts: AnalysisParts): AnalysisResult {
  const { structure } = parts;
  return {
    page_type: parts.pageType,
    recommended_fetch_mode: parts.recommendedFetchMode,
    site_summary: parts.siteSummary,
    suggested_schema: parts.suggestedSchema,
    sample_links: structure.sampleLinks,
    detected_elements: structure.elements,
    follow_patterns: followPatterns(structure.patterns, parts.classes),
    load_more: structure.loadMore ?? null,
  };
}
