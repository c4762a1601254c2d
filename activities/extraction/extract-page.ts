// The extractPage activity: an extract job's page as one activity (extractOnePage, page-pipeline.ts), with
// the worker's engines and stores as its ports. One activity instead of fetch → clean → extract and two
// recordEvents: no content stored and read back, and three round trips through Temporal fewer per extract.
import { categorized } from '../common/failure.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { currentPageRun, type ExtractPageInput, type ExtractPageResult } from './extraction-types.js';
import { extractOnePage } from './page-pipeline.js';
import { pagePorts } from './page-ports.js';

export function makeExtractPage(deps: ActivityDeps) {
  const ports = pagePorts(deps);
  // The worker heartbeats for it while it runs (worker/interceptors.ts).
  return async function extractPage(input: ExtractPageInput): Promise<ExtractPageResult> {
    const run = currentPageRun();
    return categorized(() => extractOnePage(ports, input, run));
  };
}
