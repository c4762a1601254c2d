// How long the model may still take in the current model step. A waited job (extract, analyze: the caller
// holds POST /extract open for EXTRACT_WAIT_SECONDS) bounds each of its model steps — every chain entry and
// every Temporal attempt together — to STEP_TIMEOUTS × LLM_TIMEOUT_MS from the step's first scheduling, so a
// hung model fails the job within a known time instead of after two full timeouts and a backoff. Crawl pages
// are not waited for: their model calls keep the plain per-call timeout.
import { WORKFLOW_TYPES } from '../../../shared/temporal-names.js';
import { currentActivity } from '../../common/activity-context.js';

/** The model step of a waited job takes at most this many LLM_TIMEOUT_MS (90 s by default). */
export const STEP_TIMEOUTS = 1.5;

const WAITED: ReadonlySet<string> = new Set([WORKFLOW_TYPES.extract, WORKFLOW_TYPES.analyze]);

/** Milliseconds left in the running model step; Infinity outside a waited job's activity. */
export function stepTimeLeft(callTimeoutMs: number, now = Date.now()): number {
  const info = currentActivity()?.info;
  if (!info?.workflowType || !WAITED.has(info.workflowType)) return Infinity;
  return info.scheduledTimestampMs + STEP_TIMEOUTS * callTimeoutMs - now;
}

/** Every call gets at least this long, even past the step's end: a fast answer (a 429) still says what went wrong. */
export const minCallMs = (callTimeoutMs: number) => Math.min(1_000, callTimeoutMs / 2);

/** After a timeout, another attempt of the step is worth it only if a whole call still fits in it. */
export const worthRetrying = (callTimeoutMs: number) => stepTimeLeft(callTimeoutMs) >= callTimeoutMs;
