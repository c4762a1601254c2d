// crawlWorkflow: a breadth-first crawl from a seed URL. Pages run as activities, at most `concurrency` at
// a time, each domain's page starts at least `delay` apart (durable timers); new links come back from the
// page activity already de-duplicated. History stays bounded: the workflow continues as new, carrying the
// frontier and counters, whenever Temporal suggests it.
import {
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { CrawlJobInput } from '../shared/schemas/job-spec.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import {
  type CrawlState,
  initialState,
  loadChunk,
  pageEvent,
  type QueuedPage,
  storeFrontier,
} from './crawl-frontier.js';
import { type CrawlRun, PagesInFlight } from './crawl-in-flight.js';
import { JobLog } from './job-events.js';
import { JobWebhooks } from './job-webhooks.js';
import { recordPolicy } from './policies.js';

/** The crawl job's spec with its ids (shared/schemas/job-spec.ts), and its state carried over continue-as-new. */
export type CrawlWorkflowInput = CrawlJobInput & { state?: CrawlState };

export interface CrawlWorkflowResult {
  jobId: string;
  status: 'completed';
  completed: number;
  failed: number;
  skipped: number;
  runs: number;
}

/** What a failure of the job's own records becomes: recorded first when it is the job's cancellation. */
type OnRecordFailure = (err: unknown) => Promise<never>;

const { dropFrontier } = proxyActivities<Activities>(recordPolicy);

/**
 * Continue as new well before Temporal's limits, even if the server does not suggest it. The worker holds a
 * run's state for as long as the run lasts, so its memory follows a run's length: with batches (under one
 * event a page) a run of 4,096 events held ~4,700 pages and a 10,000-page crawl's worker peaked at 421 MB;
 * with 2,000 events a run, at 392 MB.
 */
const MAX_HISTORY_EVENTS = 2000;

const setStatus = (status: string) =>
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);

const queued = (state: CrawlState) => state.frontier.length > 0 || (state.frontierChunks?.length ?? 0) > 0;

export async function crawlWorkflow(input: CrawlWorkflowInput): Promise<CrawlWorkflowResult> {
  const fresh = !input.state;
  const seeds = input.seeds ?? [{ url: input.url, depth: 0, parentUrl: null }];
  const state: CrawlState = input.state ?? initialState(seeds, input.firstSeq);
  const run: CrawlRun = {
    input,
    opts: input.options,
    seeds,
    state,
    // The job's own records are never cancelled half-way: one cancelled before its activity ran would leave
    // its seqs unwritten.
    log: new JobLog(input.jobId, input.tenantId, state.nextSeq, true),
    hooks: new JobWebhooks(input.jobId, input.tenantId, input.webhooks),
    inflight: new Map(),
  };
  // A cancellation that comes while the job starts or ends (not only while pages run) is recorded too.
  const cancelledAnywhere: OnRecordFailure = async (err) => {
    if (isCancellation(err)) await recordCancellation(run);
    throw err;
  };
  if (fresh) await recordStart(run, cancelledAnywhere);
  await runPages(run);
  return continueOrFinish(run, input, cancelledAnywhere);
}

/** The job's start (its first run only): job.started and the seeds discovered, then its webhooks. */
async function recordStart(run: CrawlRun, failed: OnRecordFailure): Promise<void> {
  setStatus('running');
  await run.log
    .record(
      { type: 'job.started', data: {} },
      {
        type: 'crawl.discovered',
        data: {
          nodes: run.seeds.map((seed, node) => ({
            node,
            url: seed.url,
            parent_url: seed.parentUrl,
            depth: seed.depth,
            status: 'pending' as const,
          })),
        },
      },
    )
    .catch(failed);
  await run.hooks.emit('job.started').catch(failed);
}

/**
 * Runs queued pages, at most `concurrency` at a time, until none is left, a budget ran out, or history is
 * full (and those in flight drained); a cancellation is recorded before it is thrown on.
 */
async function runPages(run: CrawlRun): Promise<void> {
  const { state, opts, hooks } = run;
  const pages = new PagesInFlight(run);
  const historyLimit = opts.history_limit ?? MAX_HISTORY_EVENTS;
  const historyFull = () =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > historyLimit;
  try {
    while (queued(state) || pages.size > 0) {
      // Once a budget is exhausted no page starts; those in flight finish.
      while (pages.busy < opts.concurrency && queued(state) && !historyFull() && !state.budgetExhausted) {
        // Slots a batch may take, and as many pages as it holds; a crawl that batches (batchSlots > 1) runs
        // even one free slot's pages as a batch, one after another.
        const slots = Math.min(pages.batchSlots, opts.concurrency - pages.busy, state.frontier.length);
        if (state.frontier.length === 0) await loadChunk(run.input.jobId, state);
        else if (pages.batchSlots > 1 && state.frontier.length > 1)
          pages.startBatch(state.frontier.splice(0, pages.batchPages(slots)), slots);
        else pages.start(state.frontier.shift() as QueuedPage);
      }
      if (pages.size === 0) break; // history full and drained: continue as new below
      await pages.somePageEnded();
      if (hooks.wantsProgress) await hooks.progress(state.completed + state.failed + state.skipped);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await recordCancellation(run);
    throw err;
  }
}

/** Records the job's cancellation: pages in flight end as skipped in their own seq, then job.cancelled. */
function recordCancellation(run: CrawlRun): Promise<void> {
  const { state, log, inflight } = run;
  return CancellationScope.nonCancellable(async () => {
    // Unless their activity already wrote a result there (a seq is written once).
    const ended = [...inflight.values()].map((f) => ({
      slot: f.slot,
      body: pageEvent('page.skipped', f.page, f.pageId, 'cancelled', 'the job was cancelled'),
    }));
    await log.record(...ended, {
      type: 'job.cancelled',
      data: { duration_ms: Date.now() - state.startedAt },
    });
    setStatus('cancelled');
  });
}

/**
 * The run's end: while pages are still queued (history was full) the crawl continues as new with its
 * frontier (stored in chunks); else the stored chunks are dropped and the job ends.
 */
async function continueOrFinish(
  run: CrawlRun,
  input: CrawlWorkflowInput,
  failed: OnRecordFailure,
): Promise<CrawlWorkflowResult> {
  const { state, log, hooks } = run;
  if (queued(state) && !state.budgetExhausted) {
    await storeFrontier(input.jobId, state).catch(failed);
    state.nextSeq = log.seq;
    state.runs++;
    await continueAsNew<typeof crawlWorkflow>({ ...input, state });
  }
  if (state.chunksStored) await dropFrontier({ jobId: input.jobId, count: state.chunksStored }).catch(failed);
  return finishCrawl(input, state, log, hooks);
}

/**
 * The job's end once no page is left: failed when no page was extracted (every page failed, or a budget
 * stopped the crawl before any), else completed — both say whether a budget ran out.
 */
async function finishCrawl(
  input: CrawlWorkflowInput,
  state: CrawlState,
  log: JobLog,
  hooks: JobWebhooks,
): Promise<CrawlWorkflowResult> {
  const duration_ms = Date.now() - state.startedAt;
  const exhausted = state.budgetExhausted ? { budget_exhausted: true as const } : {};
  if (state.completed === 0 && (state.failed > 0 || state.budgetExhausted)) {
    const failure = state.budgetExhausted
      ? { category: 'quota_exceeded' as const, message: state.budgetExhausted.message }
      : (state.lastFailure ?? { category: 'unknown' as const, message: 'no page could be extracted' });
    await log.record({
      type: 'job.failed',
      data: {
        error_category: failure.category,
        error_message: `no page was extracted: ${failure.message}`,
        duration_ms,
        ...exhausted,
      },
    });
    setStatus('failed');
    await hooks.emit('job.failed');
    throw ApplicationFailure.nonRetryable(failure.message, failure.category);
  }
  await log.record({ type: 'job.completed', data: { duration_ms, ...exhausted } });
  setStatus('completed');
  await hooks.emit('job.completed');
  return {
    jobId: input.jobId,
    status: 'completed',
    completed: state.completed,
    failed: state.failed,
    skipped: state.skipped,
    runs: state.runs,
  };
}
