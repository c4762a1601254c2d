// A crawl's pages in flight: each started alone (in its domain's turn) or with others as one batch, tracked
// from its first run to its outcome recorded in its seq, and the page loop woken when one ends. A batch holds
// fewer slots of the crawl's concurrency than it has pages (it runs them a few at a time). The awaits of
// a tracked page are those of the loop before batches: replay needs their order, so keep them as they are.
import { defineQuery, isCancellation, proxyActivities, setHandler, sleep, uuid4 } from '@temporalio/workflow';
import type { CrawlPageInput, CrawlPageResult } from '../activities/crawl/crawl-types.js';
import type { Activities } from '../activities/index.js';
import type { CrawlJobInput, CrawlRunOptions, Seed } from '../shared/schemas/job-spec.js';
import { CRAWL_IN_FLIGHT_QUERY } from '../shared/temporal-names.js';
import { batchPagesOf, batchSlotsOf, crawlBatch } from './crawl-batches.js';
import { type CrawlState, DomainTurns, type QueuedPage } from './crawl-frontier.js';
import { failedPageEvent, recordOutcome } from './crawl-outcome.js';
import type { JobLog, Slot } from './job-events.js';
import type { JobWebhooks } from './job-webhooks.js';
import { crawlPagePolicy } from './policies.js';

/** What the parts of one run of a crawl share (crawl.ts makes it). */
export interface CrawlRun {
  input: CrawlJobInput;
  opts: CrawlRunOptions;
  seeds: readonly Seed[];
  state: CrawlState;
  log: JobLog;
  hooks: JobWebhooks;
  /** Pages started and not yet recorded; a cancelled one stays until the cancellation records it. */
  inflight: Map<number, InFlightPage>;
}

export interface InFlightPage {
  promise: Promise<void>;
  slot: Slot;
  page: QueuedPage;
  pageId: string;
}

/** A page as it starts: its seq reserved and its page id made. */
type StartedPage = Pick<InFlightPage, 'page' | 'slot' | 'pageId'>;

const { crawlPage } = proxyActivities<Activities>(crawlPagePolicy);

/** The longest wait between two tries of a deferred page. */
const MAX_DEFER_WAIT_MS = 2_000;

export class PagesInFlight {
  // Pages whose activity runs now (not those still waiting for their domain's turn): the crawl map shows
  // them as `crawling`. A query reads this; nothing about it is recorded in history.
  private readonly crawling = new Set<number>();
  /** Slots a batch takes at most (1: each page alone). */
  readonly batchSlots: number;
  /** Pages in flight in batches still running beyond the slots those batches hold. */
  private unslotted = 0;
  private readonly turns: DomainTurns;
  private ended = 0;
  private stopped: { error: unknown } | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly run: CrawlRun) {
    const { opts, state } = run;
    setHandler(defineQuery<number[]>(CRAWL_IN_FLIGHT_QUERY), () => [...this.crawling]);
    // Crawls with a per-domain delay start every page as its own activity.
    this.batchSlots = batchSlotsOf(opts);
    this.turns = new DomainTurns(state, opts.delay_ms);
  }

  /** Pages in flight. */
  get size(): number {
    return this.run.inflight.size;
  }

  /** Slots of the crawl's concurrency taken: a page alone holds one, a running batch as many as it runs at a time. */
  get busy(): number {
    return this.run.inflight.size - this.unslotted;
  }

  /** Pages a batch of `slots` slots takes from the frontier at most. */
  batchPages(slots: number): number {
    return batchPagesOf(slots, this.run.opts.max_pages);
  }

  /** Starts a page alone, in its domain's turn. */
  start(page: QueuedPage): void {
    const slot = this.run.log.reserve();
    const pageId = page.redo?.pageId ?? uuid4();
    const turn = this.turns.turnFor(page.url);
    const at = { page, slot, pageId };
    const pageInput = this.inputOf(at);
    this.track(at, pageInput, turn, () => crawlPage(pageInput));
  }

  /**
   * Starts pages as one activity running `slots` of them at a time (no per-domain delay, so their turns are
   * free), each in its own seq.
   */
  startBatch(pages: QueuedPage[], slots: number): void {
    const entries = pages.map((page) => ({
      page,
      slot: this.run.log.reserve(),
      pageId: page.redo?.pageId ?? uuid4(),
    }));
    const started = entries.map((at) => ({ at, pageInput: this.inputOf(at) }));
    const { results, ended } = crawlBatch(
      started.map(({ pageInput }) => pageInput),
      slots,
    );
    this.unslotted += pages.length - slots;
    void ended.then(() => {
      this.unslotted -= pages.length - slots;
    });
    for (const [i, { at, pageInput }] of started.entries()) {
      this.crawling.add(at.page.node);
      this.track(at, pageInput, null, () => results[i] as Promise<CrawlPageResult>);
    }
  }

  /** Until at least one page in flight ends; a cancellation (or other error) of a page is thrown here. */
  async somePageEnded(): Promise<void> {
    // One promise the pages resolve, not Promise.race over every page in flight: ~10 promises per page,
    // each costing a stack trace in the workflow sandbox (~10% of the worker's CPU on a fast crawl).
    if (this.ended === 0 && !this.stopped)
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    this.wake = null;
    this.ended = 0;
    if (this.stopped) throw this.stopped.error;
  }

  private inputOf(at: StartedPage): CrawlPageInput {
    const { input, opts, seeds } = this.run;
    return pageInputOf(input, opts, at.page, { ...at, seeds: seeds.length });
  }

  /**
   * A page in flight from its first run (`first`, once its domain's `turn` came) to its outcome recorded in
   * its seq: deferred pages wait and run again with `pageInput`, a failure is recorded as page.failed, a
   * cancellation leaves it to the cancellation's record (crawl.ts).
   */
  private track(
    at: StartedPage,
    pageInput: CrawlPageInput,
    turn: Promise<void> | null,
    first: () => Promise<CrawlPageResult>,
  ): void {
    const { page, slot, pageId } = at;
    const { crawling, run } = this;
    let cancelled = false;
    const promise = (async () => {
      try {
        if (turn) {
          await turn;
          crawling.add(page.node);
        }
        let result = await first();
        // Over its tenant's share of the worker the page did not run: wait on a durable timer, backing off.
        for (let tries = 0; result.outcome === 'deferred'; tries++) {
          crawling.delete(page.node);
          await sleep(Math.min(result.retryAfterMs * 2 ** Math.min(tries, 5), MAX_DEFER_WAIT_MS));
          crawling.add(page.node);
          result = await crawlPage(pageInput);
        }
        await recordOutcome(run, page, { pageId, slot }, result);
      } catch (err) {
        if (isCancellation(err)) {
          // The page stays in flight, so the cancellation records it as skipped in its seq (seqs are
          // gap-free: a missing one holds the job's projection back).
          cancelled = true;
          throw err;
        }
        await run.log.record({ slot, body: failedPageEvent(run.state, page, pageId, err) });
      } finally {
        if (!cancelled) {
          crawling.delete(page.node);
          run.inflight.delete(page.node);
        }
      }
    })();
    run.inflight.set(page.node, { promise, slot, page, pageId });
    promise.then(
      () => this.pageEnded(),
      (error: unknown) => {
        this.stopped ??= { error };
        this.pageEnded();
      },
    );
  }

  private pageEnded(): void {
    this.ended++;
    this.wake?.();
  }
}

/** The crawl-page activity's input for a page of the crawl (`seeds`: how many seed pages there are). */
function pageInputOf(
  input: CrawlJobInput,
  opts: CrawlRunOptions,
  page: QueuedPage,
  at: { pageId: string; slot: Slot; seeds: number },
): CrawlPageInput {
  const { pageId, slot } = at;
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
    ...(input.maxAgeMs !== undefined ? { maxAgeMs: input.maxAgeMs } : {}),
    ...(page.stored ? { stored: page.stored } : {}),
  };
}
