// Per-tenant share of this worker's activity slots. One tenant's crawls may run at most `limit` activities
// (a batch: a slot per page) at once here, so the rest of the slots stay free for other tenants' jobs, and
// no more crawl pages than the worker has activity slots run at once. A crawl page over the share
// does not wait inside its slot (that would still hold it): it returns at once as `deferred`, and its
// workflow runs it again after a durable timer. Activities that cannot be deferred (one-page jobs, which
// are short) are counted but never refused, so they weigh on their tenant's crawls instead.

import { AsyncLocalStorage } from 'node:async_hooks';

export class TenantShare {
  private readonly running = new Map<string, number>();
  /** Slots taken over every tenant (a batch of crawl pages takes one per page). */
  private taken = 0;

  /**
   * `limit`: how many activities one tenant may run at once on this worker; `total`: how many crawl pages
   * may run here at once over all tenants (a batch holds one activity slot of Temporal's but runs several
   * pages, so the activity slots alone no longer bound the pages in memory).
   */
  constructor(
    readonly limit: number,
    readonly total = Number.POSITIVE_INFINITY,
  ) {}

  static fromConfig(config: { WORKER_MAX_ACTIVITIES: number; TENANT_MAX_SHARE: number }): TenantShare {
    return new TenantShare(
      Math.max(1, Math.floor(config.WORKER_MAX_ACTIVITIES * config.TENANT_MAX_SHARE)),
      config.WORKER_MAX_ACTIVITIES,
    );
  }

  /** The tenant's activities running now. */
  runningFor(tenantId: string): number {
    return this.running.get(tenantId) ?? 0;
  }

  /** A slot of the tenant's share, or null when the tenant runs `limit` activities here or the worker is full. */
  tryEnter(tenantId: string): (() => void) | null {
    const { count, release } = this.tryEnterSome(tenantId, 1);
    return count === 1 ? release : null;
  }

  /**
   * As many slots of the tenant's share as are free, up to `wanted` (a batch of crawl pages counts a slot
   * per page), within the worker's `total`, and their release; none when the share or the worker is full.
   */
  tryEnterSome(tenantId: string, wanted: number): { count: number; release: () => void } {
    const count = Math.min(wanted, this.limit - this.runningFor(tenantId), this.total - this.taken);
    if (count <= 0) return { count: 0, release: () => {} };
    return { count, release: this.enter(tenantId, count) };
  }

  /** Counts an activity (`count` slots of it) that runs whatever the share says; returns its release (idempotent). */
  enter(tenantId: string, count = 1): () => void {
    this.running.set(tenantId, this.runningFor(tenantId) + count);
    this.taken += count;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.taken -= count;
      const left = this.runningFor(tenantId) - count;
      if (left > 0) this.running.set(tenantId, left);
      else this.running.delete(tenantId);
    };
  }
}

const tenantOfActivity = new AsyncLocalStorage<string>();

/** Runs fn with `tenantId` as the tenant of everything it does (read by shared resources such as browser pages). */
export function runAsTenant<T>(tenantId: string, fn: () => T): T {
  return tenantOfActivity.run(tenantId, fn);
}

/** The tenant of the running activity ('' outside one). */
export function currentTenant(): string {
  return tenantOfActivity.getStore() ?? '';
}

/** What a crawl page (or a batch of them) answers when its tenant's share is taken. */
export interface DeferredActivity {
  outcome: 'deferred';
  /** How long the workflow should wait before running it again (it backs off from there). */
  retryAfterMs: number;
}

/** The first wait of a deferred activity. */
export const DEFER_AFTER_MS = 500;
