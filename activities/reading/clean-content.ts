// The clean activity: reads stored page content, runs the cleaner chain (activities/reading/cleaners/) in the
// HTML pool's threads, under its time limit, and stores the result; content travels by id.
import { type ContentFormat, chainOutputFormat } from '../../shared/cleaners.js';
import { currentActivity } from '../common/activity-context.js';
import type { StoreDeps } from '../common/deps.js';
import { categorized } from '../common/failure.js';
import type { CleanerStep } from './cleaners/index.js';
import { type HtmlPool, htmlPoolOf } from './html-pool/pool.js';

export interface CleanContentInput {
  jobId: string;
  sourceId: string;
  targetId: string;
  chain: CleanerStep[];
  /** Read the page's structured data too (the job's structured_data switch; absent: on). */
  readStructured?: boolean;
}

export interface CleanContentResult {
  contentId: string;
  chars: number;
  durationMs: number;
}

/** The format cleaned content is in: plain text passes through the chain as it is. */
export const formatOf = (contentType: string, chain: CleanerStep[]): ContentFormat =>
  contentType === 'text/plain' ? 'text' : chainOutputFormat(chain);

export function makeCleanContent(deps: Pick<StoreDeps, 'contents'> & { html?: HtmlPool }) {
  return async function cleanContent(input: CleanContentInput): Promise<CleanContentResult> {
    return categorized(async () => {
      const started = Date.now();
      const source = await deps.contents.get(input.sourceId);
      const task = {
        body: source.body,
        contentType: source.content_type,
        baseUrl: source.final_url || source.url,
        chain: input.chain,
      };
      const signal = currentActivity()?.cancellationSignal;
      const { cleaned, structured } =
        input.readStructured === false
          ? { cleaned: await htmlPoolOf(deps).run({ kind: 'clean', ...task }, signal), structured: undefined }
          : await htmlPoolOf(deps).run({ kind: 'clean-read', ...task }, signal);
      await deps.contents.put({
        ...source,
        _id: input.targetId,
        kind: 'cleaned',
        body: cleaned,
        ...(structured ? { structured } : {}),
        format: formatOf(source.content_type, input.chain),
      });
      return { contentId: input.targetId, chars: cleaned.length, durationMs: Date.now() - started };
    });
  };
}
