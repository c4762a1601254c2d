// The classifyLinks activity (analyze depth 1): fetch a few linked pages of the top follow patterns and tell
// detail pages from listings by their structure, so the analysis can say which pattern leads to details.

import { ApplicationFailure } from '@temporalio/common';
import { CategorizedError } from '../../shared/errors.js';
import type { ResolvedFetchMode } from '../../shared/schemas/common.js';
import { currentActivity, heartbeat } from '../common/activity-context.js';
import { categorized } from '../common/failure.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { makeFetchPage } from '../fetching/fetch-page.js';
import { htmlPoolOf } from '../reading/html-pool/pool.js';
import type { PatternDraft } from '../reading/page-structure/link-patterns.js';
import { type PageType, pageKind } from '../reading/page-structure/page-type.js';

export interface ClassifyLinksInput {
  jobId: string;
  fetchMode: ResolvedFetchMode;
  samples: LinkSample[];
  /** Made by the workflow; each sample is stored as `<id>:<n>`. */
  contentId: string;
}

export interface LinkSample {
  pattern: string;
  url: string;
}

export interface LinkClass extends LinkSample {
  pageType: PageType | null;
  kind: 'detail' | 'listing' | 'other' | 'failed';
}

/** Up to this many linked pages, spread over the top patterns (pagination left out: it repeats the page). */
export const MAX_SAMPLES = 4;
const PER_PATTERN = 2;

/** Which linked pages to sample: the first link of each top non-pagination pattern, then the second. Pure. */
export function pickSamples(patterns: PatternDraft[]): LinkSample[] {
  const top = patterns.filter((d) => d.role !== 'pagination').slice(0, MAX_SAMPLES);
  const picked: LinkSample[] = [];
  for (let round = 0; round < PER_PATTERN; round++) {
    for (const p of top) {
      const url = p.sample_urls[round];
      if (url) picked.push({ pattern: p.pattern, url });
    }
  }
  return picked.slice(0, MAX_SAMPLES);
}

export function makeClassifyLinks(deps: ActivityDeps) {
  const fetchPage = makeFetchPage(deps);
  return async function classifyLinks(input: ClassifyLinksInput): Promise<LinkClass[]> {
    return categorized(async () => {
      const out: LinkClass[] = [];
      for (const [n, sample] of input.samples.entries()) {
        heartbeat();
        try {
          const fetched = await fetchPage({
            jobId: input.jobId,
            url: sample.url,
            fetchMode: input.fetchMode,
            contentId: `${input.contentId}:${n}`,
          });
          const { body } = await deps.contents.get(fetched.contentId);
          const { structure } = await htmlPoolOf(deps).run(
            { kind: 'structure', body, url: fetched.finalUrl },
            currentActivity()?.cancellationSignal,
          );
          const { type } = structure.guess;
          out.push({ ...sample, pageType: type, kind: pageKind(type) });
        } catch (err) {
          if (err instanceof ApplicationFailure && err.type === 'cancelled') throw err;
          if (err instanceof CategorizedError && err.category === 'cancelled') throw err;
          // A linked page that cannot be fetched says nothing about its pattern; the analysis goes on.
          out.push({ ...sample, pageType: null, kind: 'failed' });
        }
      }
      return out;
    });
  };
}
