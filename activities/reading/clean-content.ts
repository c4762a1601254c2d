// The clean activity: reads stored page content, runs the cleaner chain (activities/reading/cleaners/) in the
// HTML pool's threads, under its time limit, and stores the result; content travels by id.
import { type ContentFormat, chainOutputFormat } from '../../shared/cleaners.js';
import { currentActivity } from '../common/activity-context.js';
import type { StoreDeps } from '../common/deps.js';
import { categorized } from '../common/failure.js';
import type { CleanerStep } from './cleaners/index.js';
import { type HtmlPool, htmlPoolOf } from './html-pool/pool.js';
import type { CleanTask } from './html-pool/tasks.js';
import type { StructuredItem } from './structured-data/read.js';

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

/**
 * The page cleaned by its chain in the HTML pool, and its structured data from the same parse unless
 * `readStructured` is false (the job's structured_data switch).
 */
export async function cleanAndRead(
  pool: Pick<HtmlPool, 'run'>,
  task: Omit<CleanTask, 'kind'>,
  readStructured: boolean | undefined,
  signal?: AbortSignal,
): Promise<{ cleaned: string; structured: StructuredItem[] | undefined }> {
  if (readStructured === false)
    return { cleaned: await pool.run({ kind: 'clean', ...task }, signal), structured: undefined };
  return pool.run({ kind: 'clean-read', ...task }, signal);
}

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
      const { cleaned, structured } = await cleanAndRead(
        htmlPoolOf(deps),
        task,
        input.readStructured,
        currentActivity()?.cancellationSignal,
      );
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
