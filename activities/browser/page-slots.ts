// A counting semaphore for browser pages: at most `size` holders; the rest queue in order, can give up on
// an abort signal, and are refused all at once when the pool closes.
import { CategorizedError } from '../../shared/errors.js';

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

export class PageSlots {
  private inUse = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private readonly size: number) {}

  get active(): number {
    return this.inUse;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortedError());
    if (this.inUse < this.size) {
      this.inUse += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at !== -1) this.waiters.splice(at, 1);
        reject(abortedError());
      };
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next)
      next.resolve(); // the slot passes straight to the next in line
    else this.inUse -= 1;
  }

  /** Refuses everyone still waiting. */
  rejectWaiting(err: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(err);
  }
}

function abortedError(): CategorizedError {
  return new CategorizedError('fetch_error', 'aborted while waiting for a browser page', false, {
    reason: 'aborted',
  });
}
