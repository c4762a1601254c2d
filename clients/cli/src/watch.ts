// Follows a job to its end through its event stream (resumed by the client after a drop), showing progress
// on stderr; Ctrl-C or the time limit stop the watching, never the job.
import type { Job } from '../../typescript/src/index.js';
import type { Context } from './context.js';
import { CliError, EXIT } from './exit.js';
import { Progress } from './progress.js';

export interface WatchOptions {
  maxPages?: number;
  /** Seconds; none: until the job ends. */
  timeout?: number;
}

export const isFinished = (job: Job) => job.status !== 'pending' && job.status !== 'running';

export async function watchJob(ctx: Context, jobId: string, opts: WatchOptions = {}): Promise<Job> {
  const client = ctx.client();
  const tty = Boolean(ctx.stderr.isTTY);
  // With --json, a pipe's stderr stays quiet too; a person at a terminal still sees the bar.
  const show = !ctx.quiet && (tty || !ctx.json);
  const progress = show ? new Progress({ stream: ctx.stderr, tty, maxPages: opts.maxPages }) : undefined;
  const controller = new AbortController();
  const onSigint = () => controller.abort('interrupted');
  process.once('SIGINT', onSigint);
  const timer =
    opts.timeout === undefined
      ? undefined
      : setTimeout(() => controller.abort('timeout'), opts.timeout * 1000);
  try {
    for await (const event of client.stream(jobId, { signal: controller.signal })) {
      if (event.event === 'status') progress?.update(event.data);
      else if (event.event === 'error')
        progress?.failure(event.data.url, event.data.error_category, event.data.error_message);
      else if (event.event === 'complete') progress?.finish(event.data);
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
    progress?.stop();
    const again = `extract-service job ${jobId}`;
    if (controller.signal.reason === 'timeout')
      throw new CliError(
        `job ${jobId} still running after ${opts.timeout} s; it goes on (${again})`,
        EXIT.timeout,
      );
    throw new CliError(`stopped watching job ${jobId}; it goes on (${again})`, EXIT.interrupted);
  } finally {
    process.removeListener('SIGINT', onSigint);
    if (timer) clearTimeout(timer);
  }
  // The job's read model follows its event log closely; wait the moment it may lag behind `complete`.
  return client.waitForJob(jobId, { timeoutMs: 30_000, intervalMs: 200 });
}

/** A finished job that did not complete is exit 1, with its reason on stderr. */
export function jobOutcome(job: Job): void {
  if (job.status === 'completed') return;
  const why = job.error_message ? `: ${job.error_category ?? 'error'}: ${job.error_message}` : '';
  throw new CliError(`job ${job.id} ${job.status}${why}`, EXIT.jobFailed);
}
