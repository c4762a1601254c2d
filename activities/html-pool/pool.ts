// The HTML pool: page HTML is cleaned and analysed in worker threads (piscina), so a hostile page can neither
// block the worker's event loop (heartbeats, other jobs) nor run unbounded. Each task has HTML_TIMEOUT_MS from
// the moment a thread takes it; past that its thread is terminated (the only way to stop running JS) and the
// pool starts a fresh one. A thread's heap is bounded too, so a page too large to parse kills only its thread.
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Config } from '../../shared/config.js';
import { CategorizedError } from '../../shared/errors.js';
import { moduleEntry } from '../../shared/runtime-paths.js';
import type { HtmlResults, HtmlTask, TaskOutcome } from './tasks.js';

/**
 * Heap of one thread. An ordinary page needs a few MB; a page of dense markup needs ~300 MB per MiB through
 * Readability (measured: 1 MiB of nested <div><span><a> passed at 768 MB, failed at 256), and a dense 5 MiB
 * page fails at any size we can afford — as content_too_large, in its own thread, not the worker.
 */
export const THREAD_HEAP_MB = 512;

export interface HtmlPool {
  /** Runs one task in a thread; `signal` (the activity's cancellation) stops it as well. */
  run<T extends HtmlTask>(task: T, signal?: AbortSignal): Promise<HtmlResults[T['kind']]>;
  close(): Promise<void>;
}

// The threads load the task module the way the process loaded its own code: a bundled worker its bundle
// (plain JavaScript), else the TypeScript source through tsx's loader, which they inherit in execArgv (under
// `tsx worker/main.ts`, `node --import tsx` and the test runner).
const TASKS = pathToFileURL(moduleEntry('activities/html-pool/tasks.ts', 'html-tasks.mjs')).href;

export function createHtmlPool(config: Pick<Config, 'HTML_WORKERS' | 'HTML_TIMEOUT_MS'>): HtmlPool {
  const pool = new Piscina({
    filename: TASKS,
    minThreads: config.HTML_WORKERS,
    maxThreads: config.HTML_WORKERS,
    idleTimeout: Number.POSITIVE_INFINITY,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
  const limitMs = config.HTML_TIMEOUT_MS;

  async function run<T extends HtmlTask>(task: T, signal?: AbortSignal): Promise<HtmlResults[T['kind']]> {
    if (signal?.aborted) throw new CategorizedError('cancelled', 'the job was cancelled');
    const abort = new AbortController();
    const cancel = () => abort.abort();
    signal?.addEventListener('abort', cancel, { once: true });
    const { port1: started, port2 } = new MessageChannel();
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    started.once('message', () => {
      timer = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, limitMs);
    });
    try {
      const outcome: TaskOutcome<HtmlResults[T['kind']]> = await pool.run(
        { task, started: port2 },
        { signal: abort.signal, transferList: [port2] },
      );
      if (outcome.ok) return outcome.value;
      const { category, message, retryable, details } = outcome.error;
      throw new CategorizedError(category, message, retryable, details);
    } catch (err) {
      throw timedOut ? overTime(task, limitMs) : signal?.aborted ? cancelled() : threadFailure(err);
    } finally {
      clearTimeout(timer);
      started.close();
      signal?.removeEventListener('abort', cancel);
    }
  }

  return { run, close: () => pool.destroy() };
}

const WHAT: Record<HtmlTask['kind'], string> = {
  clean: 'cleaning the page',
  'clean-read': 'cleaning the page and reading its structured data',
  'crawl-page': "reading the page's links and cleaning it",
  structure: "analysing the page's structure",
  learn: "learning the page template's selectors",
  apply: "reading the page with its template's learned selectors",
  match: "looking for the site's logged-out sign",
};

function overTime(task: HtmlTask, limitMs: number): CategorizedError {
  return new CategorizedError(
    'processing_timeout',
    `${WHAT[task.kind]} took longer than the HTML time limit (HTML_TIMEOUT_MS = ${limitMs} ms) and was stopped`,
    false,
    { limit_ms: limitMs },
  );
}

function cancelled(): CategorizedError {
  return new CategorizedError('cancelled', 'the job was cancelled');
}

function threadFailure(err: unknown): unknown {
  if (err instanceof CategorizedError) return err;
  if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new CategorizedError(
      'content_too_large',
      `the page needs more than the HTML thread's ${THREAD_HEAP_MB} MB of memory to process`,
    );
  return err;
}

/** The worker's pool, or a clear error for activities built without one. */
export function htmlPoolOf(deps: { html?: HtmlPool }): HtmlPool {
  if (!deps.html) throw new Error('this worker has no HTML pool (ActivityDeps.html)');
  return deps.html;
}
