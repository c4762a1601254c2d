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

/** Starts the sweep (none when retentionDays is 0); the returned function stops it. */
export function startContentRetention(
  contents: ContentStore,
  retentionDays: number,
  log: RetentionLog,
  leases?: Leases,
) {
  if (retentionDays <= 0) return () => {};
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let legacyNumbered = false;
  const run = async () => {
    let wait = EVERY_MS;
    try {
      if (leases && !(await leases.acquire(RETENTION_LEASE, 3 * EVERY_MS))) {
        if (!stopped) timer = setTimeout(run, wait).unref();
        return;
      }
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
      if (!done) wait = BACKLOG_EVERY_MS;
    } catch (err) {
      log.warn('the content retention sweep failed; it runs again later', { error: String(err) });
    }
    if (!stopped) timer = setTimeout(run, wait).unref();
  };
  timer = setTimeout(run, BACKLOG_EVERY_MS).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

const SEEN_SETS_EVERY_MS = 10 * 60_000;
/** A crawl's seen-set outlives its job this long (a page activity cancelled with it may still be ending). */
export const SEEN_SET_GRACE_MS = 10 * 60_000;
export const SEEN_SETS_LEASE = 'crawl-seen-sets';

/** Drops the seen-sets of ended crawls every few minutes, in one worker at a time; the returned function stops it. */
export function startSeenSetSweep(store: CrawlUrlStore, log: RetentionLog, leases?: Leases) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    try {
      if (!leases || (await leases.acquire(SEEN_SETS_LEASE, 3 * SEEN_SETS_EVERY_MS))) {
        const { dropped, kept } = await store.sweepEnded(SEEN_SET_GRACE_MS);
        if (dropped > 0) log.info('seen-sets of ended crawls dropped', { dropped, kept });
      }
    } catch (err) {
      log.warn('the seen-set sweep failed; it runs again later', { error: String(err) });
    }
    if (!stopped) timer = setTimeout(run, SEEN_SETS_EVERY_MS).unref();
  };
  timer = setTimeout(run, BACKLOG_EVERY_MS).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
