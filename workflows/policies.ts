// Named retry policies for every activity the workflows call.
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

const NEVER_RETRY = [
  'invalid_input',
  'ssrf_blocked',
  'robots_disallowed',
  'unsupported_content',
  'content_too_large',
  'content_expired',
  'insufficient_content',
  'invalid_key',
  'no_models',
  'model_unsupported',
  'content_too_long',
  'blocked',
  'processing_timeout',
];

/**
 * Long activities heartbeat every second while they run (worker/interceptors.ts): when their worker dies,
 * Temporal gives them to another worker (or to this one once it is back) after this long, instead of
 * waiting out their start-to-close timeout.
 */
const HEARTBEAT_TIMEOUT = '5s';

/**
 * Through the task queue, never eagerly to the worker whose workflow task scheduled it: every worker takes a
 * fair share of a crawl's pages and records. Only a one-page job's single activity (analyzeJob, mapSite;
 * an extract's page is a local activity, below) may go straight back to that worker
 * (WORKER_EAGER_ACTIVITIES), saving the queue's round trip on a waited request; which worker runs it was
 * already decided when the queue handed out the workflow task.
 */
const QUEUED: ActivityOptions = { allowEagerDispatch: false };

/** Database writes of the event log: fast, retried until the store is back. */
export const recordPolicy: ActivityOptions = {
  ...QUEUED,
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
};

/** Fetching and cleaning pages: a few quick retries for transient network errors. */
export const fetchPolicy: ActivityOptions = {
  ...QUEUED,
  startToCloseTimeout: '2m',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '20s',
    maximumAttempts: 3,
    nonRetryableErrorTypes: NEVER_RETRY,
  },
};

/** Model calls: fallback along the chain happens inside the activity; retry the whole chain rarely. */
export const modelPolicy: ActivityOptions = {
  ...QUEUED,
  startToCloseTimeout: '10m',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: {
    initialInterval: '2s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 2,
    nonRetryableErrorTypes: NEVER_RETRY,
  },
};

/**
 * An extract job's page (fetch + clean + model, extractPage), run as a local activity: in the worker that
 * holds the workflow task, whose completion then carries the page's result and the workflow's end at once —
 * one workflow task and no activity task per extract, where a queued activity costs two more trips through
 * Temporal. The model's timeout and attempts, whose two attempts a waited job's model step bounds
 * (activities/extraction/llm/step-time.ts). No heartbeat timeout: while it runs, the worker keeps the
 * workflow task alive instead; when the worker dies, the task times out (10 s) and another worker runs the
 * page again from the start, and extractPage finds any result the first run recorded (page-pipeline.ts).
 */
export const extractPagePolicy: LocalActivityOptions = {
  startToCloseTimeout: modelPolicy.startToCloseTimeout,
  retry: modelPolicy.retry,
};

/** One crawl page (fetch + clean + model + links). */
export const crawlPagePolicy: ActivityOptions = {
  ...QUEUED,
  startToCloseTimeout: '10m',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: {
    initialInterval: '2s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 3,
    nonRetryableErrorTypes: NEVER_RETRY,
  },
};

/**
 * Several pages of a crawl at once (crawlPages): one attempt. A page that fails in it, or all of them when
 * the batch itself fails (its worker died), run again alone under crawlPagePolicy.
 */
export const crawlPagesPolicy: ActivityOptions = {
  ...crawlPagePolicy,
  retry: { ...crawlPagePolicy.retry, maximumAttempts: 1 },
};

/** Whether `policy` would have run an activity again after this failure of its first attempt. */
export function retriedBy(
  policy: ActivityOptions,
  failure: { category: string; retryable: boolean },
): boolean {
  const retry = policy.retry ?? {};
  return (
    failure.retryable &&
    retry.maximumAttempts !== 1 &&
    !(retry.nonRetryableErrorTypes ?? []).includes(failure.category)
  );
}

/**
 * Analyzing a page: a static fetch and a browser render to compare (analyzePage), or a few linked pages
 * one after another (classifyLinks): longer than one fetch.
 */
export const analyzePolicy: ActivityOptions = { ...fetchPolicy, startToCloseTimeout: '5m' };

/**
 * An analyze job in one activity (analyzeJob: both fetches, up to four linked pages at depth 1, then up to
 * three model calls): the model's policy; a waited job bounds its model steps
 * (activities/extraction/llm/step-time.ts), and 10 minutes covers the fetches (analyzePolicy's 5 minutes)
 * and those steps.
 */
export const analyzeJobPolicy: ActivityOptions = { ...modelPolicy, allowEagerDispatch: true };

/**
 * Mapping a site (mapSite): sitemaps and a few pages within the map's 45 s time budget, then its record; a
 * transient failure of the start page is tried again.
 */
export const mapPolicy: ActivityOptions = {
  ...fetchPolicy,
  startToCloseTimeout: '2m',
  allowEagerDispatch: true,
};

/** One webhook attempt (a 30 s POST and its record): never retried here, the delivery workflow retries. */
export const webhookPolicy: ActivityOptions = {
  ...QUEUED,
  startToCloseTimeout: '90s',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { maximumAttempts: 1 },
};
