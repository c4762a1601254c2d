// GET /jobs/{id}/stream as an async iterable: Server-Sent Events parsed into typed events, and a dropped
// connection resumed with Last-Event-ID, so the caller sees every event once, in order, until `complete`.
import { ProblemError, problemFrom } from './errors.js';
import type { components } from './schema.js';

export type JobStreamEvent = components['schemas']['JobStreamEvent'];

interface RawEvent {
  event: string;
  id: string | undefined;
  retry: number | undefined;
  data: string;
}

/** The SSE wire format (WHATWG HTML §9.2): text chunks in, one RawEvent per blank-line-ended block out. */
export async function* parseSse(chunks: AsyncIterable<string>): AsyncGenerator<RawEvent> {
  let buffer = '';
  let block: RawEvent = { event: 'message', id: undefined, retry: undefined, data: '' };
  let hasData = false;
  for await (const chunk of chunks) {
    buffer += chunk;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? ''; // the last piece may be a line still arriving
    for (const line of lines) {
      if (line === '') {
        if (hasData) yield { ...block, data: block.data.slice(0, -1) };
        block = { event: 'message', id: block.id, retry: undefined, data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue; // a comment (the service's heartbeat)
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') block.event = value;
      else if (field === 'id') block.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) block.retry = Number(value);
      else if (field === 'data') {
        block.data += `${value}\n`;
        hasData = true;
      }
    }
  }
}

async function* textOf(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      yield decoder.decode(read.value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

export interface StreamOptions {
  /** Start after this event id (from an earlier stream), as Last-Event-ID. */
  lastEventId?: number;
  signal?: AbortSignal;
  /** Reconnections in a row without a new event before the stream gives up (default 5). */
  maxReconnects?: number;
  /** The longest wait before a reconnection, whatever the service's `retry` says (default 5 s). */
  maxReconnectDelayMs?: number;
}

export type OpenStream = (lastEventId: number | undefined, signal: AbortSignal) => Promise<Response>;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads, and re-opens after a drop, until the `complete` event; throws on an error answer. */
export async function* resumableStream(
  open: OpenStream,
  options: StreamOptions = {},
): AsyncGenerator<JobStreamEvent> {
  let lastId = options.lastEventId;
  let retryMs = 1000;
  let failures = 0;
  const maxReconnects = options.maxReconnects ?? 5;
  for (;;) {
    const controller = new AbortController();
    const stop = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', stop, { once: true });
    let error: unknown;
    try {
      const response = await open(lastId, controller.signal);
      if (!response.ok || !response.body) throw await problemFrom(response);
      for await (const raw of parseSse(textOf(response.body))) {
        if (raw.retry !== undefined) retryMs = raw.retry;
        const event = { event: raw.event, id: Number(raw.id), retry: raw.retry, data: JSON.parse(raw.data) };
        lastId = event.id;
        failures = 0;
        yield event as JobStreamEvent;
        if (event.event === 'complete') return;
      }
      // The response ended before `complete`: a proxy or the server went away. Resume.
    } catch (err) {
      if (options.signal?.aborted || err instanceof ProblemError || err instanceof SyntaxError) throw err;
      error = err;
    } finally {
      options.signal?.removeEventListener('abort', stop);
      controller.abort(); // a consumer that stops reading closes the connection
    }
    if (++failures > maxReconnects) throw error ?? new Error(`job stream ended ${failures} times early`);
    await delay(Math.min(retryMs, options.maxReconnectDelayMs ?? 5000));
  }
}
