// A job over pages of an earlier one (retry, re-extract) as a pure function of the earlier job's stored spec:
// the same spec and pages always make the same new spec, and the stored spec is never changed.
import type { CrawlSpec, ExtractSpec, JobSpec, StoredSource } from './schemas/job-spec.js';

/** A page of an earlier job that a new job runs again. */
export interface EarlierPage {
  id: string;
  url: string;
  depth: number;
  parent_url: string | null;
}

/**
 * The spec over these pages: an extract over its page (read from the store when `fromPage` names it), a
 * crawl over exactly these pages with no link followed (its limit is their number); analyze and map jobs
 * run again as they were asked.
 */
function onPages(
  spec: JobSpec,
  pages: readonly EarlierPage[],
  fromPage: (pageId: string) => StoredSource | undefined,
): JobSpec {
  if (spec.kind === 'crawl') {
    const { follow_selector, follow_pattern, next_selector, ...options } = spec.options;
    return {
      ...spec,
      seeds: pages.map((page) => {
        const stored = fromPage(page.id);
        return {
          url: page.url,
          depth: page.depth,
          parentUrl: page.parent_url,
          ...(stored ? { stored } : {}),
        };
      }),
      // These pages only: no new links are followed.
      options: { ...options, max_pages: pages.length },
    };
  }
  if (spec.kind !== 'extract') return spec;
  const [page] = pages;
  const stored = page ? fromPage(page.id) : undefined;
  return stored ? { ...spec, stored } : spec;
}

/**
 * A retry of a finished job's failed pages, with the same settings. With `refetch`, every page is fetched
 * again; without, a failed page runs from what the original stored of it (fetched when it has none). A
 * re-extract's sources are not a retry's: the retry takes its pages from the job it retries.
 */
export function retrySpec(
  spec: JobSpec,
  run: { failedPages: readonly EarlierPage[]; refetch: boolean; originalJobId: string },
): JobSpec {
  const base = withoutSources(spec);
  const fromPage = (pageId: string): StoredSource | undefined =>
    run.refetch ? undefined : { jobId: run.originalJobId, pageId, missing: 'fetch' };
  return onPages(base, run.failedPages, fromPage);
}

/** What a re-extract changes of the original: a new schema and chain, and what the caller gave again. */
export type ReextractChanges = Pick<ExtractSpec, 'schema' | 'cleanerChain'> &
  Partial<Pick<ExtractSpec, 'llm' | 'structuredData' | 'captureDebug' | 'budget'>>;

/**
 * A re-extract of a finished extract or crawl: its pages read from the page store (failing when gone), with
 * the changes given; not carried over are the original's webhooks, max_age and earlier sources.
 */
export function reextractSpec(
  spec: ExtractSpec | CrawlSpec,
  run: { pages: readonly EarlierPage[]; originalJobId: string; changes: ReextractChanges },
): JobSpec {
  // Fields the caller left out are absent from `changes`, never undefined: the original's stay.
  const changes = { ...run.changes, reextractOf: run.originalJobId };
  const fromPage = (pageId: string): StoredSource => ({ jobId: run.originalJobId, pageId, missing: 'fail' });
  if (spec.kind === 'crawl') {
    const { webhooks: _hooks, maxAgeMs: _age, seeds: _seeds, ...kept } = spec;
    return onPages({ ...kept, ...changes }, run.pages, fromPage);
  }
  const { webhooks: _hooks, maxAgeMs: _age, stored: _stored, ...kept } = spec;
  return onPages({ ...kept, ...changes }, run.pages, fromPage);
}

/** The spec without where an earlier retry or re-extract took its pages from. */
function withoutSources(spec: JobSpec): JobSpec {
  if (spec.kind === 'crawl') {
    const { seeds: _seeds, reextractOf: _of, ...rest } = spec;
    return rest;
  }
  if (spec.kind === 'extract') {
    const { stored: _stored, reextractOf: _of, ...rest } = spec;
    return rest;
  }
  return spec;
}
