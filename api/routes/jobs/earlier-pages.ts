// The pages of a finished job that a retry or a re-extract runs again, read a batch of results at a time and
// kept only as what the new job's spec needs (id, URL, depth, parent): a crawl of 10,000 pages is never held
// whole. Their references travel in the new workflow's input, so they are bounded by number and by size,
// far below Temporal's 2 MB payload limit.
import type { JobView } from '../../../shared/reducers/job.js';
import type { ResultView } from '../../../shared/reducers/results.js';
import type { EarlierPage } from '../../../shared/rerun-spec.js';
import type { ApiDeps } from '../../deps.js';
import { ProblemError } from '../../problem.js';

/** Pages one retry or re-extract takes at most. */
export const RERUN_MAX_PAGES = 2000;
/** The pages' references (URL, parent URL) one retry or re-extract takes at most, as JSON. */
export const RERUN_MAX_BYTES = 512 * 1024;

/**
 * The job's pages that `wanted` keeps, in event order. More than RERUN_MAX_PAGES of them, or references
 * larger than RERUN_MAX_BYTES, is a 409 problem naming how many there are (`what`: "failed pages", ...).
 */
export async function earlierPages(
  deps: ApiDeps,
  job: JobView,
  wanted: (page: ResultView) => boolean,
  what: string,
): Promise<EarlierPage[]> {
  const pages: EarlierPage[] = [];
  let total = 0;
  let bytes = 0;
  for await (const batch of deps.jobs.resultBatches(job)) {
    for (const r of batch) {
      if (!wanted(r)) continue;
      total++;
      const page = { id: r.id, url: r.url, depth: r.depth, parent_url: r.parent_url };
      bytes += Buffer.byteLength(JSON.stringify(page));
      if (total <= RERUN_MAX_PAGES && bytes <= RERUN_MAX_BYTES) pages.push(page);
    }
  }
  if (pages.length < total) {
    throw new ProblemError({
      slug: 'conflict',
      detail:
        `the job has ${total} ${what} (${Math.ceil(bytes / 1024)} KiB of URLs); one job over them takes at most ` +
        `${RERUN_MAX_PAGES} pages and ${RERUN_MAX_BYTES / 1024} KiB of URLs`,
    });
  }
  return pages;
}
