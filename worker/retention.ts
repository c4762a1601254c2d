// The retention sweeps. Stored page contents (PAGE_RETENTION_DAYS): a bounded batch every few minutes, the
// next one sooner while old contents are left, so a backlog drains without holding the database for long.
// The sweep is safe from several workers at once; a lease still gives it to one of them at a time, so N
// workers do not read the same day counters N times. And the seen-sets of crawls that ended (a collection
// each, shared/store/crawl-urls.ts), dropped some minutes after their job's end.
import type { ContentStore } from '../shared/store/contents.js';
import type { CrawlUrlStore } from '../shared/store/crawl-urls.js';
import type { Leases } from '../shared/store/leases.js';

const EVERY_MS = 10 * 60_000;
const BACKLOG_EVERY_MS = 5_000;
const BATCH = 2000;
const DAY_MS = 86_400_000;
export const RETENTION_LEASE = 'content-retention';

export interface RetentionLog {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

/**
 * Runs `sweep` under the lease `lease` (one process at a time), first after a few seconds, then after the
 * wait it answers (`everyMs` when it answers nothing or fails); the returned function stops it.
 */
function leasedLoop(
  lease: string,
  everyMs: number,
  leases: Leases | undefined,
  log: RetentionLog,
  what: string,
  sweep: () => Promise<number | undefined>,
) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    let wait = everyMs;
    try {
      if (!leases || (await leases.acquire(lease, 3 * everyMs))) wait = (await sweep()) ?? everyMs;
    } catch (err) {
      log.warn(`the ${what} failed; it runs again later`, { error: String(err) });
    }
    if (!stopped) timer = setTimeout(run, wait).unref();
  };
  timer = setTimeout(run, BACKLOG_EVERY_MS).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Starts the sweep (none when retentionDays is 0); the returned function stops it. */
export function startContentRetention(
  contents: ContentStore,
  retentionDays: number,
  log: RetentionLog,
  leases?: Leases,
) {
  if (retentionDays <= 0) return () => {};
  let legacyNumbered = false;
  return leasedLoop(RETENTION_LEASE, EVERY_MS, leases, log, 'content retention sweep', async () => {
    if (!legacyNumbered) {
      const numbered = await contents.numberLegacy();
      legacyNumbered = true;
      if (numbered > 0)
        log.info('page contents stored before retention numbered for the sweep', { numbered });
    }
    const { deleted, done } = await contents.sweepExpired(
      new Date(Date.now() - retentionDays * DAY_MS),
      BATCH,
    );
    if (deleted > 0) log.info('expired page contents deleted', { deleted, retentionDays, backlog: !done });
    return done ? undefined : BACKLOG_EVERY_MS;
  });
}

const SEEN_SETS_EVERY_MS = 10 * 60_000;
/** A crawl's seen-set outlives its job this long (a page activity cancelled with it may still be ending). */
export const SEEN_SET_GRACE_MS = 10 * 60_000;
export const SEEN_SETS_LEASE = 'crawl-seen-sets';

/** Drops the seen-sets of ended crawls every few minutes, in one worker at a time; the returned function stops it. */
export function startSeenSetSweep(store: CrawlUrlStore, log: RetentionLog, leases?: Leases) {
  return leasedLoop(SEEN_SETS_LEASE, SEEN_SETS_EVERY_MS, leases, log, 'seen-set sweep', async () => {
    const { dropped, kept } = await store.sweepEnded(SEEN_SET_GRACE_MS);
    if (dropped > 0) log.info('seen-sets of ended crawls dropped', { dropped, kept });
    return undefined;
  });
}
