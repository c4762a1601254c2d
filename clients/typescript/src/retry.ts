// A fetch that retries 429 and 503 answers after the Retry-After the service asks for (bounded), and network
// errors of requests that are safe to repeat (GETs, and POSTs carrying an Idempotency-Key).
import { retryAfterMs } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  retries?: number;
  /** The longest wait the client accepts: a longer Retry-After is returned to the caller (default 30 s). */
  maxRetryDelayMs?: number;
}

const RETRY_STATUSES = new Set([429, 503]);
const BACKOFF_MS = 500;

function sleep(ms: number, signal: AbortSignal | null) {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const canRepeat = (request: Request) => request.method === 'GET' || request.headers.has('idempotency-key');

export function retryingFetch(fetchImpl: typeof fetch, options: RetryOptions = {}) {
  const retries = options.retries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  return async (input: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const request = input.clone(); // a body can be sent once: each attempt sends a copy
      const last = attempt >= retries;
      let response: Response;
      try {
        response = await fetchImpl(request);
      } catch (err) {
        if (last || input.signal.aborted || !canRepeat(input)) throw err;
        await sleep(BACKOFF_MS * 2 ** attempt, input.signal);
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? BACKOFF_MS * 2 ** attempt;
      if (wait > maxDelay) return response;
      await response.body?.cancel();
      await sleep(wait, input.signal);
    }
  };
}
