// The job stream as pure functions: which Server-Sent Events a job's event log produces, and their framing.
// Event ids are derived from log seqs (see JobStreamCursor), so a resuming client gets exactly what came after.
import type { JobEvent } from './events.js';
import { applyJobEvent, initialJob, isFinal, type JobView } from './reducers/job.js';
import { resultFromEvent } from './reducers/results.js';
import type { StreamEvent } from './schemas/stream.js';

/** Milliseconds a client waits before reconnecting: every event carries it as `retry`. */
export const SSE_RETRY_MS = 3000;
export const HEARTBEAT_FRAME = ': heartbeat\n\n';

export function statusEvent(job: JobView, id: number): StreamEvent {
  return {
    event: 'status',
    id,
    retry: SSE_RETRY_MS,
    data: {
      job_id: job.id,
      status: job.status,
      page_count: job.page_count,
      urls_queued: job.urls_queued,
      failed_count: job.failed_count,
      token_usage_input: job.token_usage_input,
      token_usage_output: job.token_usage_output,
      cost_usd: job.cost_usd,
      budget_exhausted: job.budget_exhausted ?? false,
    },
  };
}

export function completeEvent(job: JobView, id: number, resultsUrl: string): StreamEvent {
  return {
    event: 'complete',
    id,
    retry: SSE_RETRY_MS,
    data: {
      job_id: job.id,
      status: job.status,
      page_count: job.page_count,
      failed_count: job.failed_count,
      cost_usd: job.cost_usd,
      budget_exhausted: job.budget_exhausted ?? false,
      error_category: job.error_category,
      error_message: job.error_message,
      results_url: resultsUrl,
    },
  };
}

/** Stream events of one log seq: ids go from `seq * SSE_IDS_PER_SEQ` up, at most this many per seq. */
export const SSE_IDS_PER_SEQ = 10;

/**
 * What one log event tells a client already told the job's status (`job` is the state after it). The ids
 * are placeholders: JobStreamCursor numbers the events.
 */
export function eventsForLogEvent(event: JobEvent, job: JobView): StreamEvent[] {
  if (event.type === 'job.started' || event.type === 'crawl.discovered') return [statusEvent(job, 0)];
  if (!event.type.startsWith('page.')) return [];
  const out: StreamEvent[] = [];
  const page = resultFromEvent(event);
  if (page) {
    const { url, status, data, error_category, error_message } = page;
    const answered = { llm_provider: page.provider || null, llm_model: page.model || null };
    out.push({
      event: 'result',
      id: 0,
      retry: SSE_RETRY_MS,
      data: { id: page.id, url, status, data, error_category, error_message, ...answered },
    });
    // An extract job's one page failing is the job failing (told by `complete`); a cancelled page is the
    // job ending. Other page failures leave the job running: those are `error` events.
    const goesOn = job.type !== 'extract' && error_category !== 'cancelled';
    if (status === 'failed' && error_category && goesOn) {
      out.push({
        event: 'error',
        id: 0,
        retry: SSE_RETRY_MS,
        data: {
          job_id: job.id,
          url,
          error_category,
          error_message: error_message ?? '',
          message: `${url}: ${error_message ?? error_category}`,
        },
      });
    }
  }
  out.push(statusEvent(job, 0));
  return out;
}

/**
 * Folds a job's log, in seq order, into the events one client should get. The whole stream is a function
 * of the log: a `status` for `job.created`, the events of each later log event, and `complete` with the
 * event that ended the job. The i-th event of seq s has id `s * SSE_IDS_PER_SEQ + i`, so ids are unique,
 * strictly increasing and the same for a live client and a late one, across API restarts. A client
 * resuming after id n gets exactly the events with a larger id — except `complete`, which a resumed client
 * of an ended job always gets (with its own id), so it does not wait forever.
 */
export class JobStreamCursor {
  private job: JobView | null = null;
  /** The last log seq folded: the next read starts after it. */
  lastSeq = -1;
  /** True once `complete` was produced: the stream ends. */
  done = false;

  constructor(
    private readonly resumeAfter: number | null,
    private readonly resultsUrl: string,
  ) {}

  next(event: JobEvent): StreamEvent[] {
    if (this.done || event.seq <= this.lastSeq) return [];
    this.lastSeq = event.seq;
    const before = this.job;
    if (before) this.job = applyJobEvent(before, event);
    else if (event.type === 'job.created') this.job = initialJob(event);
    const job = this.job;
    if (!job) return [];
    const after = this.resumeAfter ?? -1;
    const base = event.seq * SSE_IDS_PER_SEQ;
    const ended = isFinal(job.status);
    if (ended) this.done = true;
    // A seq wholly before the resume point is only folded (its events are not even built), unless it ended
    // the job: the id of `complete` counts the events before it.
    if (!ended && base + SSE_IDS_PER_SEQ - 1 <= after) return [];
    const told = before ? eventsForLogEvent(event, job) : [statusEvent(job, 0)];
    if (ended) told.push(completeEvent(job, 0, this.resultsUrl));
    return told.map((e, i) => ({ ...e, id: base + i })).filter((e) => e.id > after || e.event === 'complete');
  }
}

/** One SSE frame. Every line of the data gets its own `data:` field, so no payload can break the framing. */
export function formatSseFrame(event: StreamEvent): string {
  const data = JSON.stringify(event.data)
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `id: ${event.id}\nevent: ${event.event}\nretry: ${event.retry}\n${data}\n`;
}

/** The event id to resume after: the Last-Event-ID header (if it is an id), else the query parameter. */
export function resumePoint(header: string | undefined, query: number | undefined): number | null {
  const trimmed = header?.trim();
  if (trimmed && /^\d{1,15}$/.test(trimmed)) return Number(trimmed);
  return query ?? null;
}
