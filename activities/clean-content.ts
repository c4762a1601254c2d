// The clean activity: reads stored page content, runs the cleaner chain (activities/cleaners/) and
// stores the result; content travels by id (decisions.md "Schemas and cleaning").
import { CategorizedError } from '../shared/errors.js';
import { type CleanContext, type CleanerStep, runChain } from './cleaners/index.js';
import type { ActivityDeps } from './deps.js';
import { categorized } from './failure.js';

export { CLEANERS, type CleanerStep, runChain } from './cleaners/index.js';

export interface CleanContentInput {
  jobId: string;
  sourceId: string;
  targetId: string;
  chain: CleanerStep[];
}

export interface CleanContentResult {
  contentId: string;
  chars: number;
  durationMs: number;
}

/** Runs the cleaner chain over a page body; a page with nothing readable left is a failure. */
export function cleanBody(
  body: string,
  contentType: string,
  baseUrl: string,
  chain: CleanerStep[],
  parsed?: CleanContext['parsed'],
): string {
  const cleaned = contentType === 'text/plain' ? body : runChain(body, chain, { baseUrl, parsed });
  if (!cleaned.trim()) throw new CategorizedError('insufficient_content', 'the page has no readable content');
  return cleaned;
}

export function makeCleanContent(deps: ActivityDeps) {
  return async function cleanContent(input: CleanContentInput): Promise<CleanContentResult> {
    return categorized(async () => {
      const started = Date.now();
      const source = await deps.contents.get(input.sourceId);
      const cleaned = cleanBody(
        source.body,
        source.content_type,
        source.final_url || source.url,
        input.chain,
      );
      await deps.contents.put({ ...source, _id: input.targetId, kind: 'cleaned', body: cleaned });
      return { contentId: input.targetId, chars: cleaned.length, durationMs: Date.now() - started };
    });
  };
}
