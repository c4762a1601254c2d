import type { AnalyzeWorkflowInput } from '../../shared/schemas/job-spec.js';
import { currentActivity } from '../common/activity-context.js';
import { categorized } from '../common/failure.js';
import { completedEvents, type JobPlaces, recordStarted } from '../common/job-places.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { makeAnalyzePage } from './analyze-page.js';
import { makeClassifyLinks } from './classify-links.js';
import { makeRecordAnalysis } from './record-analysis.js';
import { makeSuggestAnalysis } from './suggest-analysis.js';

/** The analyze job's spec, where its events go, and the ids the workflow made for its page. */
export interface AnalyzeJobInput
  extends Pick<AnalyzeWorkflowInput, 'url' | 'depth' | 'fetchMode' | 'captureDebug'>,
    JobPlaces {
  pageId: string;
  /** Made by the workflow: the page's stored contents are `<id>:…`, the linked pages' `<id>:links:<n>`. */
  contentId: string;
}

export function makeAnalyzeJob(deps: ActivityDeps) {
  const analyzePage = makeAnalyzePage(deps);
  const classifyLinks = makeClassifyLinks(deps);
  const suggestAnalysis = makeSuggestAnalysis(deps);
  const recordAnalysis = makeRecordAnalysis(deps);

  /**
   * A retried attempt whose earlier attempt recorded the analysis: it stands (the model is not asked
   * again), and what the earlier attempt may not have written is written now (idempotent).
   */
  async function recorded(input: AnalyzeJobInput): Promise<{ pageType: string } | null> {
    if ((currentActivity()?.info.attempt ?? 1) <= 1) return null;
    const page = await deps.events.get(input.jobId, input.page.seq);
    if (page?.type !== 'page.completed') return null;
    await deps.events.append(completedEvents(input));
    const data = page.data.data as { page_type?: unknown } | null;
    return { pageType: String(data?.page_type ?? '') };
  }

  // The worker heartbeats for it while it runs (worker/interceptors.ts).
  return async function analyzeJob(input: AnalyzeJobInput): Promise<{ pageType: string }> {
    return categorized(async () => {
      const done = await recorded(input);
      if (done) return done;
      await recordStarted(deps, input);
      const job = { jobId: input.jobId, tenantId: input.tenantId, captureDebug: input.captureDebug };
      const page = await analyzePage({
        jobId: input.jobId,
        url: input.url,
        fetchMode: input.fetchMode,
        contentId: input.contentId,
      });
      const samples = input.depth >= 1 ? page.linkSamples : [];
      const classes =
        samples.length > 0
          ? await classifyLinks({
              jobId: input.jobId,
              fetchMode: page.recommended.mode,
              samples,
              contentId: `${input.contentId}:links`,
            })
          : [];
      const suggestion = await suggestAnalysis({
        ...job,
        pageId: input.pageId,
        url: input.url,
        evidenceId: page.evidenceId,
        fetch: page.fetch,
        structure: page.structure,
      });
      return recordAnalysis(
        {
          ...job,
          pageId: input.pageId,
          url: input.url,
          cleanedId: page.cleanedId,
          fetch: page.fetch,
          cleanDurationMs: page.cleanDurationMs,
          structure: page.structure,
          recommendedFetchMode: page.recommended.mode,
          suggestion,
          classes,
          eventSeq: input.page.seq,
          eventId: input.page.eventId,
        },
        () => completedEvents(input),
      );
    });
  };
}
