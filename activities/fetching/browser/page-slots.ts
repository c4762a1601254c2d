// A counting semaphore for browser pages, fair between tenants: at most `size` holders; a tenant may hold
// more than its share (`perTenant`) only while no other tenant is waiting, and a freed page goes to the
// waiting tenant that holds the fewest (first come first served among equals). Waiters can give up on an
// abort signal and are refused all at once when the pool closes. The tenant is the running activity's.
import { CategorizedError } from '../../../shared/errors.js';
import { currentTenant } from '../../common/tenant-share.js';

interface Waiter {
  tenant: string;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class PageSlots {
  private inUse = 0;
  private readonly held = new Map<string, number>();
  private readonly waiters: Waiter[] = [];
  private readonly perTenant: number;

  /** `share`: the fraction of the pages one tenant may hold while another tenant waits (at least one page). */
  constructor(
    private readonly size: number,
    share = 1,
  ) {
    this.perTenant = Math.max(1, Math.floor(size * share));
  }

  get active(): number {
    return this.inUse;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Pages the tenant holds now. */
  heldBy(tenant: string): number {
    return this.held.get(tenant) ?? 0;
  }

  /** Resolves with the tenant the page was counted for; pass it to release(). */
  acquire(signal?: AbortSignal, tenant = currentTenant()): Promise<string> {
    if (signal?.aborted) return Promise.reject(abortedError());
    if (this.waiters.length === 0 && this.mayTake(tenant)) {
      this.take(tenant);
      return Promise.resolve(tenant);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at !== -1) this.waiters.splice(at, 1);
        reject(abortedError());
        this.dispatch(); // a waiter that blocked others by its tenant's share may have been the last one
      };
      const waiter: Waiter = {
        tenant,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(tenant);
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

  release(tenant: string): void {
    this.inUse -= 1;
    const left = this.heldBy(tenant) - 1;
    if (left > 0) this.held.set(tenant, left);
    else this.held.delete(tenant);
    this.dispatch();
  }

  /** Refuses everyone still waiting. */
  rejectWaiting(err: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(err);
  }

  /** A free page, and the tenant under its share or alone in wanting one. */
  private mayTake(tenant: string): boolean {
    if (this.inUse >= this.size) return false;
    return this.heldBy(tenant) < this.perTenant || this.waiters.every((w) => w.tenant === tenant);
  }

  private take(tenant: string): void {
    this.inUse += 1;
    this.held.set(tenant, this.heldBy(tenant) + 1);
  }

  /** Hands free pages to waiters: the tenant holding the fewest first, in arrival order among equals. */
  private dispatch(): void {
    while (this.inUse < this.size && this.waiters.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiters.length; i++) {
        const w = this.waiters[i] as Waiter;
        if (this.heldBy(w.tenant) < this.heldBy((this.waiters[best] as Waiter).tenant)) best = i;
      }
      const [next] = this.waiters.splice(best, 1) as [Waiter];
      this.take(next.tenant);
      next.resolve();
    }
  }
}

function abortedError(): CategorizedError {
  return new CategorizedError('fetch_error', 'aborted while waiting for a browser page', false, {
    reason: 'aborted',
  });
}
