// The job stream as pure functions: which Server-Sent Events a job's event log produces, and their framing.
// Event ids are log seqs, so a client resuming with Last-Event-ID N gets exactly what came after seq N.
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
      error_category: job.error_category,
      error_message: job.error_message,
      results_url: resultsUrl,
    },
  };
}

/** What one log event tells a client already told the job's status (`job` is the state after it). */
export function eventsForLogEvent(event: JobEvent, job: JobView): StreamEvent[] {
  const id = event.seq;
  if (event.type === 'job.started' || event.type === 'crawl.discovered') return [statusEvent(job, id)];
  if (!event.type.startsWith('page.')) return [];
  const out: StreamEvent[] = [];
  const page = resultFromEvent(event);
  if (page) {
    const { url, status, data, error_category, error_message } = page;
    out.push({
      event: 'result',
      id,
      retry: SSE_RETRY_MS,
      data: { id: page.id, url, status, data, error_category, error_message },
    });
    // An extract job's one page failing is the job failing (told by `complete`); a cancelled page is the
    // job ending. Other page failures leave the job running: those are `error` events.
    const goesOn = job.type !== 'extract' && error_category !== 'cancelled';
    if (status === 'failed' && error_category && goesOn) {
      out.push({
        event: 'error',
        id,
        retry: SSE_RETRY_MS,
        data: { job_id: job.id, url, error_category, error_message: error_message ?? '' },
      });
    }
  }
  out.push(statusEvent(job, id));
  return out;
}

/**
 * Folds a job's log, in seq order, into the events one client should get. The first event is a `status`
 * as of the resume point (seq `resumeAfter`, or the job's creation); events up to that point are folded
 * silently; `complete` comes once the job is final, even for a client that had already seen it.
 */
export class JobStreamCursor {
  private job: JobView | null = null;
  private announced = false;
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
    if (this.job) this.job = applyJobEvent(this.job, event);
    else if (event.type === 'job.created') this.job = initialJob(event);
    const job = this.job;
    if (!job) return [];
    let out: StreamEvent[] = [];
    if (this.announced) out = eventsForLogEvent(event, job);
    else if (event.seq >= (this.resumeAfter ?? -1)) out = this.announce(job);
    return out.concat(this.completeIfFinal(job));
  }

  /**
   * The log has nothing more for now. A client that resumed after a seq the log does not hold is told the
   * status as of the log's end (and `complete`, if the job has ended).
   */
  caughtUp(): StreamEvent[] {
    if (this.announced || !this.job) return [];
    return this.announce(this.job).concat(this.completeIfFinal(this.job));
  }

  private announce(job: JobView): StreamEvent[] {
    this.announced = true;
    return [statusEvent(job, this.lastSeq)];
  }

  private completeIfFinal(job: JobView): StreamEvent[] {
    if (!this.announced || !isFinal(job.status)) return [];
    this.done = true;
    return [completeEvent(job, this.lastSeq, this.resultsUrl)];
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

/** The seq to resume after: the Last-Event-ID header (if it is a seq), else the query parameter. */
export function resumePoint(header: string | undefined, query: number | undefined): number | null {
  const trimmed = header?.trim();
  if (trimmed && /^\d{1,15}$/.test(trimmed)) return Number(trimmed);
  return query ?? null;
}
