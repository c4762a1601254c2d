// One page's structure, parsed once: elements and their counts, the main repeated block, pagination, follow
// patterns, sample links, the page type the evidence suggests, candidate fields and their values on the page.
// Compact enough to pass through workflow history (no page text beyond short samples). Pure.
import { type CheerioAPI, load } from 'cheerio';
import type { LoadMoreFinding } from '../../../shared/schemas/analyze.js';
import {
  type Candidate,
  type CandidateField,
  itemCandidates,
  type SampleValue,
  singleItemCandidates,
} from './candidate-fields.js';
import { countPage, type DetectedElement, describeElements } from './elements.js';
import { collectLinks, groupPatterns, type PatternDraft, sampleLinks } from './link-patterns.js';
import { findLoadMore } from './load-more.js';
import { guessPageType, type PageTypeGuess } from './page-type.js';
import { findPagination } from './pagination.js';
import { findRepeatedBlocks, mainBlock, type RepeatedBlock } from './repeated-blocks.js';
import { isListingType } from './suggested-schema.js';

export interface PageStructure {
  url: string;
  title: string;
  guess: PageTypeGuess;
  elements: DetectedElement[];
  patterns: PatternDraft[];
  sampleLinks: string[];
  fields: CandidateField[];
  /**
   * The fields read off the page by the selectors they were found with: one record per item of the main block
   * (the first few), or the page's one record. What the fallback schema yields without a model. Absent in
   * structures recorded before it was read.
   */
  records?: Record<string, SampleValue>[];
  /** Selector of the main repeated block, if any, and its size. */
  itemSelector: string | null;
  items: number;
  /** A load-more button or infinite scroll, with the actions that expand the listing (absent in older ones). */
  loadMore?: LoadMoreFinding | null;
}

const MAX_BLOCKS = 3;
/** Records kept in the structure's sample: enough to show the fallback works, small enough for history. */
const MAX_RECORDS = 20;

function readRecords($: CheerioAPI, candidates: Candidate[], block: RepeatedBlock | null) {
  const scopes = block
    ? $(block.selector)
        .toArray()
        .slice(0, MAX_RECORDS)
        .map((el) => $(el))
    : [$.root()];
  return scopes.map((scope) => Object.fromEntries(candidates.map((c) => [c.field.name, c.read(scope)])));
}

export function analyzeStructure(html: string, url: string): PageStructure {
  const $ = load(html);
  const blocks = findRepeatedBlocks($);
  const main = mainBlock(blocks);
  const pagination = findPagination($, url);
  const found = countPage($);
  const guess = guessPageType({
    url,
    counts: found.counts,
    items: main?.count ?? 0,
    itemsWithLinks: main?.withLinks ?? 0,
    paginationLinks: pagination.urls.length,
  });
  const links = collectLinks($, url, main?.selector ?? null, new Set(pagination.urls));
  const repeated: DetectedElement[] = blocks.slice(0, MAX_BLOCKS).map((b) => ({
    name: `${b === main ? 'main ' : ''}repeated items (${b.selector.split(' > ').at(-1)})`,
    type: b.inChrome ? 'link_list' : 'repeated_item',
    count: b.count,
    description: `${b.count} blocks matching ${b.selector}, ${b.withLinks} of them with a link${b.inChrome ? ' (in site navigation)' : ''}`,
  }));
  const paging: DetectedElement[] = pagination.urls.length
    ? [
        {
          name: 'pagination',
          type: 'pagination',
          count: pagination.urls.length,
          description: `links to ${pagination.urls.length} other pages of this listing (${pagination.selector})`,
        },
      ]
    : [];
  const block = isListingType(guess.type) && main ? main : null;
  const candidates = block ? itemCandidates($, block.selector, url) : singleItemCandidates($, url);
  return {
    url,
    title: $('title').first().text().replace(/\s+/g, ' ').trim().slice(0, 200),
    guess,
    elements: [...repeated, ...paging, ...describeElements($, found)],
    patterns: groupPatterns(links),
    sampleLinks: sampleLinks(links),
    fields: candidates.map((c) => c.field),
    records: readRecords($, candidates, block),
    itemSelector: main?.selector ?? null,
    items: main?.count ?? 0,
    loadMore: findLoadMore($, main?.selector ?? null),
  };
}
