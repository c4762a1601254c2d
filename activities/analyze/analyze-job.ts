// An analyze job as one activity (analyzeJob): fetch and parse the page, at depth 1 classify a few linked
// pages, ask the model, check its schema on the page and record the analysis, all in one activity execution
// (the four steps analyzeWorkflow runs as four activities, called here as functions). It records the events
// it produces itself: job.started before the fetch, and the analysis with job.completed in one append (a job
// without webhooks). Contents still go through the store by id, as the steps read them there.
import type { JobEvent, JobEventBody } from '../../shared/events.js';
import type { FetchMode } from '../../shared/schemas/common.js';
import { currentActivity } from '../activity-context.js';
import type { ActivityDeps } from '../deps.js';
import type { EventPlace } from '../extract-page.js';
import { categorized } from '../failure.js';
import { makeAnalyzePage } from './analyze-page.js';
import { makeClassifyLinks } from './classify-links.js';
import { makeRecordAnalysis } from './record-analysis.js';
import { makeSuggestAnalysis } from './suggest-analysis.js';

export interface AnalyzeJobInput {
  jobId: string;
  tenantId: string;
  pageId: string;
  url: string;
  /** 0: the page alone; 1: also a sample of the pages it links to. */
  depth: number;
  fetchMode: FetchMode;
  captureDebug: boolean;
  /** Made by the workflow: the page's stored contents are `<id>:…`, the linked pages' `<id>:links:<n>`. */
  contentId: string;
  /** Where the analysis (page.completed) goes; a failure is recorded there by the workflow. */
  page: EventPlace;
  /** job.started, recorded before the fetch (absent: the workflow recorded it). */
  started?: EventPlace;
  /** job.completed, recorded with the analysis (absent: the workflow records it), timed from `since`. */
  completed?: EventPlace & { since: number };
}

export function makeAnalyzeJob(deps: ActivityDeps) {
  const analyzePage = makeAnalyzePage(deps);
  const classifyLinks = makeClassifyLinks(deps);
  const suggestAnalysis = makeSuggestAnalysis(deps);
  const recordAnalysis = makeRecordAnalysis(deps);

  const eventOf = (input: AnalyzeJobInput, place: EventPlace, body: JobEventBody): JobEvent =>
    ({
      ...body,
      job_id: input.jobId,
      tenant_id: input.tenantId,
      seq: place.seq,
      event_id: place.eventId,
      at: new Date().toISOString(),
    }) as JobEvent;

  const completedEvents = (input: AnalyzeJobInput): JobEvent[] =>
    input.completed
      ? [
          eventOf(input, input.completed, {
            type: 'job.completed',
            data: { duration_ms: Date.now() - input.completed.since },
          }),
        ]
      : [];

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
      if (input.started) {
        const logger = currentActivity()?.log ?? console;
        await deps.events.appendDeferred(
          [eventOf(input, input.started, { type: 'job.started', data: {} })],
          (err) =>
            logger.warn('projecting the job failed; its next event retries', {
              jobId: input.jobId,
              error: String(err),
            }),
        );
      }
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
