// A crawl's frontier: the pages queued, the links a page brings admitted under max_depth / max_pages, each
// domain's turn (delay between page starts, on durable timers), and queued pages too many for a
// continue-as-new input stored in chunks outside history. Workflow code: deterministic, no I/O.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { CrawlPageInput, CrawlPageResult } from '../activities/crawl/crawl-types.js';
import type { Activities } from '../activities/index.js';
import type { ErrorCategory } from '../shared/errors.js';
import type { CrawlNode, JobEventBody } from '../shared/events.js';
import type { CrawlRunOptions, Seed } from '../shared/schemas/job-spec.js';
import { recordPolicy } from './policies.js';

export interface QueuedPage {
  node: number;
  url: string;
  depth: number;
  parentUrl: string | null;
  /** A page to re-do by the model: its learned extractor failed a later check. */
  redo?: { pageId: string; revises: NonNullable<CrawlPageInput['revises']> };
  /** Re-extract, or a retry without a fetch: an earlier job's stored page instead of the network. */
  stored?: CrawlPageInput['stored'];
}

export interface CrawlState {
  nextSeq: number;
  nextNode: number;
  admitted: number;
  completed: number;
  failed: number;
  skipped: number;
  frontier: QueuedPage[];
  startedAt: number;
  lastFailure: { category: ErrorCategory; message: string } | null;
  domainNextStart: Record<string, number>;
  runs: number;
  /**
   * Queued pages stored outside history (activities/crawl/crawl-frontier.ts), by chunk number, oldest first.
   */
  frontierChunks?: number[];
  /** Chunks stored so far (the next one's number). */
  chunksStored?: number;
  /** A budget refused a page's model call: no new page starts, and the job says so at its end. */
  budgetExhausted?: { message: string };
}

const { storeFrontierChunk, loadFrontierChunk } = proxyActivities<Activities>(recordPolicy);

/** Queued pages up to this size (as JSON) travel in the continue-as-new input; more are stored in chunks. */
const FRONTIER_INLINE_BYTES = 128 * 1024;
/** Size (as JSON) of one stored chunk of queued pages: one activity payload, far under Temporal's 2 MB. */
const FRONTIER_CHUNK_BYTES = 192 * 1024;
/** Skipped links recorded per page at most: a trap of endless links must not flood the log. */
const MAX_SKIPPED_RECORDED_PER_PAGE = 50;

/** The first run's state: the seeds queued, nothing counted yet. */
export function initialState(seeds: readonly Seed[], firstSeq: number): CrawlState {
  return {
    nextSeq: firstSeq,
    nextNode: seeds.length,
    admitted: seeds.length,
    completed: 0,
    failed: 0,
    skipped: 0,
    frontier: seeds.map((seed, node) => ({ node, ...seed })),
    startedAt: Date.now(),
    lastFailure: null,
    domainNextStart: {},
    runs: 1,
  };
}

/**
 * Queues a page's links within max_depth and max_pages (a `next` link keeps its page's depth) and returns
 * the crawl-map nodes to record: each admitted link, and the first links refused, with the reason.
 */
export function admitLinks(
  state: CrawlState,
  opts: CrawlRunOptions,
  page: QueuedPage,
  links: Extract<CrawlPageResult, { outcome: 'completed' }>['links'],
): CrawlNode[] {
  const nodes: CrawlNode[] = [];
  let skippedRecorded = 0;
  for (const link of links) {
    const depth = link.kind === 'next' ? page.depth : page.depth + 1;
    const reason =
      depth > opts.max_depth ? 'max_depth' : state.admitted >= opts.max_pages ? 'max_pages' : null;
    if (reason) {
      if (skippedRecorded++ >= MAX_SKIPPED_RECORDED_PER_PAGE) continue;
      nodes.push({
        node: state.nextNode++,
        url: link.url,
        parent_url: page.url,
        depth,
        status: 'skipped',
        reason,
      });
      continue;
    }
    state.admitted++;
    const node = state.nextNode++;
    nodes.push({ node, url: link.url, parent_url: page.url, depth, status: 'pending' });
    state.frontier.push({ node, url: link.url, depth, parentUrl: page.url });
  }
  return nodes;
}

/** The event of a page that ended without a result: failed, or skipped (cancelled, budget, robots…). */
export function pageEvent(
  type: 'page.failed' | 'page.skipped',
  page: QueuedPage,
  pageId: string,
  category: ErrorCategory,
  message: string,
): JobEventBody {
  return {
    type,
    data: {
      node: page.node,
      page_id: pageId,
      url: page.url,
      depth: page.depth,
      parent_url: page.parentUrl,
      error_category: category,
      error_message: message,
    },
  };
}

/**
 * Per-domain turns: a page starts only after the previous page of its domain started and `delay` more
 * has passed on a durable timer. Chained timers (not precomputed offsets): the dev server fires timers
 * on a coarse tick, so offsets scheduled together could fire together; a chain never fires early.
 */
export class DomainTurns {
  private readonly turns = new Map<string, Promise<void>>();

  constructor(
    private readonly state: CrawlState,
    private readonly delayMs: number,
  ) {}

  /** Resolves when a page of the URL's domain may start. */
  turnFor(url: string): Promise<void> {
    const domain = hostOf(url);
    const previous =
      this.turns.get(domain) ??
      (async () => {
        // A page of the previous run (before continue-as-new) may have started moments ago.
        const wait = (this.state.domainNextStart[domain] ?? 0) - Date.now();
        if (wait > 0) await sleep(wait);
      })();
    const mine = previous.then(() => {
      this.state.domainNextStart[domain] = Date.now() + this.delayMs;
    });
    this.turns.set(
      domain,
      mine.then(() => (this.delayMs > 0 ? sleep(this.delayMs) : undefined)),
    );
    return mine;
  }
}

/** The oldest stored chunk of queued pages, into the in-memory frontier. */
export async function loadChunk(jobId: string, state: CrawlState) {
  const chunk = state.frontierChunks?.shift() as number;
  state.frontier.push(...(await loadFrontierChunk({ jobId, chunk })));
}

/**
 * Before continuing as new: queued pages too many for the next run's input (a page controls how long its
 * URLs are, so a few thousand could pass Temporal's 2 MB payload limit) go to the database in chunks.
 */
export async function storeFrontier(jobId: string, state: CrawlState) {
  const sizes = state.frontier.map((page) => JSON.stringify(page).length + 1);
  if (sizes.reduce((a, b) => a + b, 0) <= FRONTIER_INLINE_BYTES) return;
  const stored: number[] = [];
  let from = 0;
  while (from < state.frontier.length) {
    let to = from;
    let bytes = 0;
    while (
      to < state.frontier.length &&
      (to === from || bytes + (sizes[to] as number) <= FRONTIER_CHUNK_BYTES)
    )
      bytes += sizes[to++] as number;
    const chunk = state.chunksStored ?? 0;
    await storeFrontierChunk({ jobId, chunk, pages: state.frontier.slice(from, to) });
    state.chunksStored = chunk + 1;
    stored.push(chunk);
    from = to;
  }
  // Older chunks first: the pages queued longest run first.
  state.frontierChunks = [...(state.frontierChunks ?? []), ...stored];
  state.frontier = [];
}

function hostOf(url: string): string {
  const match = /^https?:\/\/([^/?#]+)/i.exec(url);
  return (match?.[1] ?? url).toLowerCase();
}
