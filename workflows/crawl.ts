// crawlWorkflow: a breadth-first crawl from a seed URL. Pages run as activities, at most `concurrency` at
// a time, each domain's page starts at least `delay` apart (durable timers); new links come back from the
// page activity already de-duplicated. History stays bounded: the workflow continues as new, carrying the
// frontier and counters, whenever Temporal suggests it.
import {
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  defineQuery,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { CrawlPageInput, CrawlPageResult } from '../activities/crawl-page.js';
import type { Activities } from '../activities/index.js';
import type { CrawlJobInput, CrawlRunOptions } from '../shared/schemas/job-spec.js';
import { CRAWL_IN_FLIGHT_QUERY, SEARCH_ATTRIBUTE_KEYS } from '../shared/temporal-names.js';
import { batchSizeOf, crawlBatch } from './crawl-batches.js';
import {
  admitLinks,
  type CrawlState,
  DomainTurns,
  initialState,
  loadChunk,
  pageEvent,
  type QueuedPage,
  storeFrontier,
} from './crawl-frontier.js';
import { categoryOf } from './failures.js';
import { JobLog, type Slot } from './job-events.js';
import { JobWebhooks } from './job-webhooks.js';
import { crawlPagePolicy, recordPolicy } from './policies.js';

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

const { crawlPage } = proxyActivities<Activities>(crawlPagePolicy);
const { dropFrontier } = proxyActivities<Activities>(recordPolicy);

/** patched() id of the frontier stored in chunks at continue-as-new. */
const FRONTIER_CHUNKS_PATCH = 'crawl-frontier-chunks';

/** Continue as new well before Temporal's limits, even if the server does not suggest it. */
const MAX_HISTORY_EVENTS = 8000;
/** patched() id of pages deferred by their tenant's share of the worker (see start()). */
const TENANT_SHARE_PATCH = 'crawl-tenant-share';
/** The longest wait between two tries of a deferred page. */
const MAX_DEFER_WAIT_MS = 2_000;
/** patched() id of the loop's single wake-up (see crawlWorkflow). */
const CRAWL_ONE_WAKEUP_PATCH = 'crawl-one-wakeup';
/** patched() id of pages cancelled with their job kept in flight until the cancellation records them. */
const CANCELLED_PAGES_PATCH = 'crawl-cancelled-pages-skipped';
/** patched() id of a cancellation recorded wherever it comes (not only while pages run). */
const CANCEL_ANYWHERE_PATCH = 'crawl-cancel-anywhere';
/** patched() id of queued pages started several at once, as one crawlPages activity (crawl-batches.ts). */
const CRAWL_PAGE_BATCHES_PATCH = 'crawl-page-batches';
/**
 * patched() id of the page store's options (max_age, stored pages): asked only by runs whose input has
 * them, so other runs' histories are unchanged.
 */
const PAGE_STORE_PATCH = 'crawl-page-store';

const setStatus = (status: string) =>
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: status }]);

export async function crawlWorkflow(input: CrawlWorkflowInput): Promise<CrawlWorkflowResult> {
  const fresh = !input.state;
  const seeds = input.seeds ?? [{ url: input.url, depth: 0, parentUrl: null }];
  const state: CrawlState = input.state ?? initialState(seeds, input.firstSeq);
  // A cancellation that comes while the job starts or ends (not only while pages run) is recorded too, and
  // the job's own records are never cancelled half-way: a record cancelled before its activity ran left its
  // seqs unwritten, and one cancelled while job.started was being recorded left the job running for good.
  const cancelSafe = patched(CANCEL_ANYWHERE_PATCH);
  const log = new JobLog(input.jobId, input.tenantId, state.nextSeq, cancelSafe);
  const hooks = new JobWebhooks(input.jobId, input.tenantId, input.webhooks);
  const opts = input.options;
  const inflight = new Map<
    number,
    { promise: Promise<void>; slot: Slot; page: QueuedPage; pageId: string }
  >();
  /** Records the job's cancellation: pages in flight end as skipped in their own seq, then job.cancelled. */
  const recordCancellation = () =>
    CancellationScope.nonCancellable(async () => {
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
  /** Outside the page loop: a cancellation is recorded only by runs made since CANCEL_ANYWHERE_PATCH. */
  const cancelledAnywhere = async (err: unknown): Promise<never> => {
    if (cancelSafe && isCancellation(err)) await recordCancellation();
    throw err;
  };
  if (fresh) {
    setStatus('running');
    await log
      .record(
        { type: 'job.started', data: {} },
        {
          type: 'crawl.discovered',
          data: {
            nodes: seeds.map((seed, node) => ({
              node,
              url: seed.url,
              parent_url: seed.parentUrl,
              depth: seed.depth,
              status: 'pending' as const,
            })),
          },
        },
      )
      .catch(cancelledAnywhere);
    await hooks.emit('job.started').catch(cancelledAnywhere);
  }

  // Pages whose activity runs now (not those still waiting for their domain's turn): the crawl map shows
  // them as `crawling`. A query reads this; nothing about it is recorded in history.
  const crawling = new Set<number>();
  setHandler(defineQuery<number[]>(CRAWL_IN_FLIGHT_QUERY), () => [...crawling]);
  // The loop waits for "some page ended" on one promise its pages resolve. Runs recorded before this
  // waited on Promise.race over every page in flight: ~10 promises per page, each costing a stack trace
  // in the workflow sandbox (~10% of the worker's CPU on a fast crawl). The old way stays for their replay.
  const oneWakeup = patched(CRAWL_ONE_WAKEUP_PATCH);
  // Runs recorded before this never passed mayDefer, so their pages were never deferred.
  const mayDefer = patched(TENANT_SHARE_PATCH);
  // A page cancelled with its job stays in flight, so the cancellation records it as skipped in its seq
  // (seqs are gap-free: a missing one holds the job's projection back). Runs recorded before this dropped
  // it, which went unnoticed while a cancelled page's activity still wrote its result in its seq.
  const keepCancelledPages = patched(CANCELLED_PAGES_PATCH);
  const usesStore =
    (input.maxAgeMs !== undefined || seeds.some((seed) => seed.stored)) && patched(PAGE_STORE_PATCH);
  // Runs recorded before this started every page as its own activity; so do crawls with a per-domain delay.
  const batchSize = batchSizeOf(opts) > 1 && patched(CRAWL_PAGE_BATCHES_PATCH) ? batchSizeOf(opts) : 1;
  let ended = 0;
  let stopped: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const pageEnded = () => {
    ended++;
    wake?.();
  };
  const turns = new DomainTurns(state, opts.delay_ms);

  /** Starts a page alone, in its domain's turn. */
  function start(page: QueuedPage) {
    const slot = log.reserve();
    const pageId = page.redo?.pageId ?? uuid4();
    const turn = turns.turnFor(page.url);
    track({ page, slot, pageId }, turn, (pageInput) =>
      crawlPage(mayDefer ? { ...pageInput, mayDefer } : pageInput),
    );
  }

  /** Starts pages as one activity (no per-domain delay, so their turns are free), each in its own seq. */
  function startBatch(pages: QueuedPage[]) {
    const entries = pages.map((page) => ({
      page,
      slot: log.reserve(),
      pageId: page.redo?.pageId ?? uuid4(),
    }));
    const inputs = entries.map((at) => ({ ...inputOf(at), mayDefer }));
    const results = crawlBatch(inputs);
    for (const [i, at] of entries.entries()) {
      crawling.add(at.page.node);
      track(at, null, () => results[i] as Promise<CrawlPageResult>);
    }
  }

  function inputOf(at: { page: QueuedPage; slot: Slot; pageId: string }): CrawlPageInput {
    return pageInputOf(input, opts, at.page, { ...at, seeds: seeds.length, usesStore });
  }

  /**
   * A page in flight from its first run (`first`, once its domain's `turn` came) to its outcome recorded in
   * its seq: deferred pages wait and run again, a failure is recorded as page.failed, a cancellation leaves
   * it to recordCancellation. (The awaits are those of the loop before batches: replay needs their order.)
   */
  function track(
    at: { page: QueuedPage; slot: Slot; pageId: string },
    turn: Promise<void> | null,
    first: (pageInput: CrawlPageInput) => Promise<CrawlPageResult>,
  ) {
    const { page, slot, pageId } = at;
    let cancelled = false;
    const promise = (async () => {
      try {
        if (turn) {
          await turn;
          crawling.add(page.node);
        }
        const pageInput = inputOf(at);
        let result = await first(pageInput);
        // Over its tenant's share of the worker the page did not run: wait on a durable timer, backing off.
        for (let tries = 0; result.outcome === 'deferred'; tries++) {
          crawling.delete(page.node);
          await sleep(Math.min(result.retryAfterMs * 2 ** Math.min(tries, 5), MAX_DEFER_WAIT_MS));
          crawling.add(page.node);
          result = await crawlPage({ ...pageInput, mayDefer });
        }
        await recordOutcome({ state, opts, log }, page, { pageId, slot }, result);
      } catch (err) {
        if (isCancellation(err)) {
          cancelled = keepCancelledPages;
          throw err;
        }
        const { category, message } = categoryOf(err);
        if (!page.redo) state.failed++;
        state.lastFailure = { category, message };
        await log.record({ slot, body: pageEvent('page.failed', page, pageId, category, message) });
      } finally {
        if (!cancelled) {
          crawling.delete(page.node);
          inflight.delete(page.node);
        }
      }
    })();
    inflight.set(page.node, { promise, slot, page, pageId });
    if (oneWakeup)
      promise.then(pageEnded, (error: unknown) => {
        stopped ??= { error };
        pageEnded();
      });
  }

  /** Until at least one page in flight ends; a cancellation (or other error) of a page is thrown here. */
  async function somePageEnded() {
    if (!oneWakeup) {
      await Promise.race([...inflight.values()].map((f) => f.promise));
      return;
    }
    if (ended === 0 && !stopped)
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    wake = null;
    ended = 0;
    if (stopped) throw stopped.error;
  }

  const historyLimit = opts.history_limit ?? MAX_HISTORY_EVENTS;
  const historyFull = () =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > historyLimit;
  const queued = () => state.frontier.length > 0 || (state.frontierChunks?.length ?? 0) > 0;
  try {
    while (queued() || inflight.size > 0) {
      // Once a budget is exhausted no page starts; those in flight finish.
      while (inflight.size < opts.concurrency && queued() && !historyFull() && !state.budgetExhausted) {
        // Pages that may start together (several only with batchSize > 1).
        const room = Math.min(batchSize, opts.concurrency - inflight.size, state.frontier.length);
        // Only runs that stored their frontier (patched below) have chunks to load.
        if (state.frontier.length === 0) await loadChunk(input.jobId, state);
        else if (room > 1) startBatch(state.frontier.splice(0, room));
        else start(state.frontier.shift() as QueuedPage);
      }
      if (inflight.size === 0) break; // history full and drained: continue as new below
      await somePageEnded();
      // Runs before the patch awaited progress() every time; skipping the call (and its await) when no
      // destination wants progress changes the timing of later commands, so only patched runs skip it.
      if (!oneWakeup || hooks.wantsProgress)
        await hooks.progress(state.completed + state.failed + state.skipped);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await recordCancellation();
    throw err;
  }

  if (queued() && !state.budgetExhausted) {
    if (patched(FRONTIER_CHUNKS_PATCH)) await storeFrontier(input.jobId, state).catch(cancelledAnywhere);
    state.nextSeq = log.seq;
    state.runs++;
    await continueAsNew<typeof crawlWorkflow>({ ...input, state });
  }
  if (state.chunksStored)
    await dropFrontier({ jobId: input.jobId, count: state.chunksStored }).catch(cancelledAnywhere);

  return finishCrawl(input, state, log, hooks);
}

/** The crawl-page activity's input for a page of the crawl (`seeds`: how many seed pages there are). */
function pageInputOf(
  input: CrawlWorkflowInput,
  opts: CrawlRunOptions,
  page: QueuedPage,
  at: { pageId: string; slot: Slot; seeds: number; usesStore: boolean },
): CrawlPageInput {
  const { pageId, slot, usesStore } = at;
  return {
    jobId: input.jobId,
    tenantId: input.tenantId,
    node: page.node,
    pageId,
    url: page.url,
    depth: page.depth,
    parentUrl: page.parentUrl,
    seedUrl: input.url,
    fetchMode: input.fetchMode,
    ...(input.actions ? { actions: input.actions } : {}),
    cleanerChain: input.cleanerChain,
    schema: input.schema,
    captureDebug: input.captureDebug,
    llm: input.llm,
    rules: opts,
    respectRobots: opts.respect_robots,
    // A re-done page found its links the first time.
    discover: page.redo
      ? { follow: false, next: false }
      : { follow: page.depth < opts.max_depth, next: true },
    markSeen: !page.redo && page.node < at.seeds,
    eventSeq: slot.seq,
    eventId: slot.eventId,
    structuredData: input.structuredData,
    ...(input.learnExtractors === undefined ? {} : { learnExtractors: input.learnExtractors }),
    ...(input.siteId ? { siteId: input.siteId } : {}),
    ...(page.redo ? { revises: page.redo.revises } : {}),
    ...(input.budget ? { budget: input.budget } : {}),
    ...(usesStore && input.maxAgeMs !== undefined ? { maxAgeMs: input.maxAgeMs } : {}),
    ...(usesStore && page.stored ? { stored: page.stored } : {}),
  };
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

/**
 * A page's outcome into the job: counted, recorded in its seq (a skipped page), its links admitted and
 * recorded (a completed one), and the pages a failed extractor check showed wrong queued first to be re-done.
 */
async function recordOutcome(
  crawl: { state: CrawlState; opts: CrawlRunOptions; log: JobLog },
  page: QueuedPage,
  at: { pageId: string; slot: Slot },
  result: Exclude<CrawlPageResult, { outcome: 'deferred' }>,
): Promise<void> {
  const { state, opts, log } = crawl;
  const { pageId, slot } = at;
  if (result.outcome === 'budget_exhausted') {
    // Only new activity outcomes take this path: runs recorded before budgets replay unchanged.
    if (!page.redo) state.skipped++;
    state.budgetExhausted ??= { message: result.message };
    await log.record({
      slot,
      body: pageEvent('page.skipped', page, pageId, 'quota_exceeded', result.message),
    });
  } else if (result.outcome === 'skipped') {
    state.skipped++;
    await log.record({
      slot,
      body: pageEvent('page.skipped', page, pageId, result.category, result.message),
    });
  } else {
    // A re-done page replaces its earlier result: it is not one more page.
    if (!page.redo) state.completed++;
    const nodes = admitLinks(state, opts, page, result.links);
    if (nodes.length > 0) await log.record({ type: 'crawl.discovered', data: { nodes } });
    // Pages a failed check showed wrong run again, by the model, before the rest of the frontier.
    for (const redo of result.redo ?? [])
      state.frontier.unshift({
        node: redo.node,
        url: redo.url,
        depth: redo.depth,
        parentUrl: redo.parentUrl,
        redo: {
          pageId: redo.pageId,
          revises: { seq: redo.seq, data_source: redo.source, values: redo.values },
        },
      });
  }
}
