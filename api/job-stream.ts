// Serves one job stream: polls the job's event log (by `_id` probes, so any API instance can serve any
// job), writes the events a JobStreamCursor yields, and sends heartbeats until the job ends or the client
// goes away. Idle streams back off to one probe per POLL_MAX_MS.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { StreamEvent } from '../shared/schemas/stream.js';
import { formatSseFrame, HEARTBEAT_FRAME, type JobStreamCursor } from '../shared/sse-events.js';
import type { EventStore } from '../shared/store/event-store.js';

export const POLL_MIN_MS = 100;
export const POLL_MAX_MS = 1000;
const BATCH = 200;

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

export interface JobStreamRun {
  events: Pick<EventStore, 'list'>;
  jobId: string;
  cursor: JobStreamCursor;
  res: ServerResponse;
  heartbeatMs: number;
  /** Aborted when the client disconnects or the server shuts down. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
  /** The events' shape in the request's API version (default: v1's, as built). */
  shape?: (event: StreamEvent) => StreamEvent;
}

/** Runs until the job's `complete` is sent, the client leaves, or the log cannot be read; then ends `res`. */
export async function runJobStream(run: JobStreamRun): Promise<void> {
  const { res, signal } = run;
  const write = async (chunk: string) => {
    if (signal.aborted || res.writableEnded) return;
    // Respect backpressure: a slow client replaying a long history must not make us buffer all of it.
    if (!res.write(chunk)) await once(res, 'drain', { signal });
  };
  const heartbeat = setInterval(() => {
    if (!signal.aborted && !res.writableEnded) res.write(HEARTBEAT_FRAME);
  }, run.heartbeatMs);
  try {
    await pollLog(run, write);
  } catch (err) {
    // The client left (abort) or the log was unreadable: the client reconnects with Last-Event-ID.
    if (!signal.aborted) run.log.warn({ err, jobId: run.jobId }, 'job stream stopped');
  } finally {
    clearInterval(heartbeat);
    if (!res.writableEnded) res.end();
  }
}

async function pollLog(run: JobStreamRun, write: (chunk: string) => Promise<void>) {
  const { cursor, signal } = run;
  let idleDelay = POLL_MIN_MS;
  while (!signal.aborted && !cursor.done) {
    const batch = await run.events.list(run.jobId, cursor.lastSeq, BATCH);
    for (const event of batch) {
      for (const out of cursor.next(event)) await write(formatSseFrame(run.shape ? run.shape(out) : out));
      if (cursor.done) return;
    }
    if (batch.length === BATCH) continue; // more backlog: read on at once
    idleDelay = batch.length > 0 ? POLL_MIN_MS : Math.min(idleDelay * 2, POLL_MAX_MS);
    await sleep(idleDelay, undefined, { signal });
  }
}

/**
 * The job streams each tenant holds open in this API process. A stream holds its slot until it ends (job
 * complete, client gone, server closing); a tenant holding all of its slots gets no new one. Counted per
 * process: with several API instances a tenant may hold this many on each.
 */
export class StreamSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly perTenant: number) {}

  /** A slot for the tenant, as the function that gives it back (once), or null when it has none free. */
  take(tenantId: string): (() => void) | null {
    const count = this.held.get(tenantId) ?? 0;
    if (count >= this.perTenant) return null;
    this.held.set(tenantId, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(tenantId) ?? 1) - 1;
      if (left > 0) this.held.set(tenantId, left);
      else this.held.delete(tenantId);
    };
  }
}
