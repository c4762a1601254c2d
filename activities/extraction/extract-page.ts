// An extract job's page as one activity: fetch, clean and extract with the page kept in memory (as a crawl
// page is), recording the events it produces itself — job.started before the fetch, the page's result and
// (a job with nothing left to do after its page) job.completed in one append. One activity instead of
// fetchPage → cleanContent → extractWithModel and two recordEvents: no content stored and read back, and
// three round trips through Temporal fewer per extract.
import type { ExtractWorkflowInput } from '../../shared/schemas/job-spec.js';
import { currentActivity } from '../common/activity-context.js';
import { categorized } from '../common/failure.js';
import { completedEvents, type JobPlaces, recordStarted } from '../common/job-places.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { makePageSource } from '../fetching/fetch-page.js';
import { formatOf } from '../reading/clean-content.js';
import { htmlPoolOf } from '../reading/html-pool/pool.js';
import { makeExtractor } from './extract-with-model.js';
import { type ExtractWithModelResult, fetchFacts } from './extraction-types.js';

/** The extract job's spec with its ids, as the workflow has it, and where the activity records its events. */
export type ExtractPageInput = ExtractWorkflowInput & JobPlaces & { pageId: string };

export function makeExtractPage(deps: ActivityDeps) {
  const source = makePageSource(deps);
  const { answerFromContent, recordPage, warm } = makeExtractor(deps);

  /**
   * A retried attempt whose earlier attempt recorded the page's result: that result stands (the model is
   * not asked again), and what the earlier attempt may not have written is written now (idempotent).
   */
  async function recorded(input: ExtractPageInput): Promise<ExtractWithModelResult | null> {
    if ((currentActivity()?.info.attempt ?? 1) <= 1) return null;
    const page = await deps.events.get(input.jobId, input.page.seq);
    if (page?.type !== 'page.completed') return null;
    await deps.events.append(completedEvents(input));
    const { usage, ...data } = page.data;
    return {
      provider: data.provider,
      model: data.model,
      fallbackPosition: data.fallback_position,
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      llmCostUsd: usage.llm_cost_usd,
      costUsd: usage.cost_usd,
      durationMs: data.extract_duration_ms,
    };
  }

  // The worker heartbeats for it while it runs (worker/interceptors.ts).
  return async function extractPage(input: ExtractPageInput): Promise<ExtractWithModelResult> {
    return categorized(async () => {
      const done = await recorded(input);
      if (done) return done;
      // job.started is written while the page is fetched (projected in the background: the page's result,
      // moments later, projects it at the latest), and the model's chain is read meanwhile.
      const started = recordStarted(deps, input);
      started.catch(() => undefined); // awaited below; a fetch failing first must not leave it unobserved
      warm(input);
      const fetched = await source.obtain(input);
      await started;
      const { doc } = fetched;
      const cleanStarted = Date.now();
      const task = {
        body: doc.body,
        contentType: doc.contentType,
        baseUrl: doc.url,
        chain: input.cleanerChain,
      };
      const signal = currentActivity()?.cancellationSignal;
      // The page is kept before the model is asked: a retry without a fetch finds it after a model failure.
      const [{ cleaned, structured }] = await Promise.all([
        input.structuredData === false
          ? htmlPoolOf(deps)
              .run({ kind: 'clean', ...task }, signal)
              .then((cleaned) => ({ cleaned, structured: undefined }))
          : htmlPoolOf(deps).run({ kind: 'clean-read', ...task }, signal),
        fetched.saved,
      ]);
      const answerInput = {
        jobId: input.jobId,
        tenantId: input.tenantId,
        pageId: input.pageId,
        url: input.url,
        depth: 0,
        parentUrl: null,
        schema: input.schema,
        fetch: fetchFacts(fetched),
        cleanDurationMs: Date.now() - cleanStarted,
        jobType: 'extract',
        captureDebug: input.captureDebug,
        llm: input.llm,
        structuredData: input.structuredData,
        contentFormat: formatOf(doc.contentType, input.cleanerChain),
        ...(input.budget ? { budget: input.budget } : {}),
      };
      const { page, result } = await answerFromContent(answerInput, cleaned, { structured });
      const place = { jobId: input.jobId, tenantId: input.tenantId, eventSeq: input.page.seq };
      await recordPage({ ...place, eventId: input.page.eventId }, page, 'awaited', completedEvents(input));
      return result;
    });
  };
}
