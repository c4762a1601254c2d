// The sweeper of jobs recorded without a workflow: the API stopped, or Temporal was out of reach, between
// job.created and the workflow start. Every JOB_SWEEP_INTERVAL_MS it reads a bounded batch of the jobs still
// marked as being started and, once one is older than JOB_START_GRACE_MS (a request may still be starting
// it), starts its workflow from the stored request (api/job-runner.ts resumeJob). With several API processes,
// one sweeps at a time (a lease in the database); the same one deletes ended rate-limit windows.
import type { FastifyBaseLogger } from 'fastify';
import { Leases } from '../shared/store/leases.js';
import { RateWindows } from '../shared/store/rate-windows.js';
import type { ApiDeps } from './deps.js';
import { pendingStarts, resumeJob } from './job-runner.js';

/** Jobs looked at per sweep: a backlog (Temporal down for long) drains over several sweeps. */
const SWEEP_BATCH = 50;

export interface SweepCounts {
  started: number;
  failed: number;
  cleared: number;
  /** Left for a later sweep: too young, or Temporal still out of reach. */
  left: number;
}

export async function sweepStrandedJobs(deps: ApiDeps, now = Date.now()): Promise<SweepCounts> {
  const starts = pendingStarts(deps);
  const counts: SweepCounts = { started: 0, failed: 0, cleared: 0, left: 0 };
  for (const marker of await starts.batch(SWEEP_BATCH)) {
    if (now - marker.since.getTime() < deps.config.JOB_START_GRACE_MS) {
      counts.left++;
      continue;
    }
    // Not recorded (the API stopped before job.created: a retry creates it anew) or already under way.
    const job =
      (await deps.jobs.get(marker.tenant_id, marker._id)) ?? (await deps.events.project(marker._id));
    if (job?.status !== 'pending') {
      await starts.clear(marker._id);
      counts.cleared++;
      continue;
    }
    try {
      const outcome = await resumeJob(deps, job);
      if (outcome === 'started') counts.started++;
      else if (outcome === 'failed') counts.failed++;
      else counts.cleared++;
    } catch {
      counts.left++; // Temporal still out of reach: the marker stays for the next sweep
    }
  }
  return counts;
}

/** The lease of the API processes' periodic sweeps. */
export const API_SWEEP_LEASE = 'api-sweeps';

/**
 * Sweeps every JOB_SWEEP_INTERVAL_MS until stopped, one sweep at a time, in the one API process that holds
 * the lease (it keeps it while it lives; another takes it within three intervals of its death).
 */
export function startJobSweeper(deps: ApiDeps, log: FastifyBaseLogger): { stop(): Promise<void> } {
  const interval = deps.config.JOB_SWEEP_INTERVAL_MS;
  const leases = new Leases(deps.db);
  const windows = new RateWindows(deps.db);
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(async () => {
      if (stopped) return;
      try {
        if (!(await leases.acquire(API_SWEEP_LEASE, 3 * interval))) return;
        const counts = await sweepStrandedJobs(deps);
        if (counts.started + counts.failed > 0) log.info({ ...counts }, 'started stranded jobs');
        await windows.sweep();
      } catch (err) {
        log.warn({ err }, 'sweeping stranded jobs failed; the next sweep retries');
      }
    });
  }, interval);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await leases.release(API_SWEEP_LEASE).catch(() => undefined);
    },
  };
}
