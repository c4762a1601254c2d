// The clean activity: reads stored page content, runs the cleaner chain (activities/cleaners/) and
// stores the result; content travels by id (decisions.md "Schemas and cleaning").
import { CategorizedError } from '../shared/errors.js';
import { type CleanerStep, runChain } from './cleaners/index.js';
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

export function makeCleanContent(deps: ActivityDeps) {
  return async function cleanContent(input: CleanContentInput): Promise<CleanContentResult> {
    return categorized(async () => {
      const started = Date.now();
      const source = await deps.contents.get(input.sourceId);
      const cleaned =
        source.content_type === 'text/plain'
          ? source.body
          : runChain(source.body, input.chain, { baseUrl: source.final_url || source.url });
      if (!cleaned.trim())
        throw new CategorizedError('insufficient_content', 'the page has no readable content');
      await deps.contents.put({ ...source, _id: input.targetId, kind: 'cleaned', body: cleaned });
      return { contentId: input.targetId, chars: cleaned.length, durationMs: Date.now() - started };
    });
  };
}
