// The sweeper of jobs recorded without a workflow: the API stopped, or Temporal was out of reach, between
// job.created and the workflow start. Every JOB_SWEEP_INTERVAL_MS it reads a bounded batch of the jobs still
// marked as being started and, once one is older than JOB_START_GRACE_MS (a request may still be starting
// it), starts its workflow from the stored request (api/job-runner.ts resumeJob).
import type { FastifyBaseLogger } from 'fastify';
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

/** Sweeps every JOB_SWEEP_INTERVAL_MS until stopped; one sweep at a time. */
export function startJobSweeper(deps: ApiDeps, log: FastifyBaseLogger): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(async () => {
      if (stopped) return;
      try {
        const counts = await sweepStrandedJobs(deps);
        if (counts.started + counts.failed > 0) log.info({ ...counts }, 'started stranded jobs');
      } catch (err) {
        log.warn({ err }, 'sweeping stranded jobs failed; the next sweep retries');
      }
    });
  }, deps.config.JOB_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
