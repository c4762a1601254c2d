// The worker's interceptors: job context on every activity and workflow log line, and with tracing the
// OpenTelemetry ones (RunWorkflow spans in the sandbox, RunActivity spans here) plus the sink
// that carries workflow spans out of the sandbox to this process's span processor.
import { trace } from '@opentelemetry/api';
import type { Context } from '@temporalio/activity';
import { CancelledFailure, defaultPayloadConverter } from '@temporalio/common';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptors,
  InjectedSinks,
  Next,
  WorkerInterceptors,
} from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import {
  DEFER_AFTER_MS,
  type DeferredActivity,
  runAsTenant,
  type TenantShare,
} from '../activities/common/tenant-share.js';
import type { Activities } from '../activities/index.js';
import { type ActivityOutcome, countActivityResult } from '../shared/metrics/activities.js';
import type { ServiceMetrics } from '../shared/metrics/registry.js';
import { sourcePath } from '../shared/runtime-paths.js';
import { JOB_HEADER, type JobContext, jobContextOf, jobIdOf } from '../shared/telemetry/job-context.js';
import type { Tracing } from '../shared/telemetry/tracing.js';

/** Workflow interceptor modules, for the worker and for replay (which must bundle the same code). */
export function workflowInterceptorModules(tracing: Tracing | null | undefined): string[] {
  const own = sourcePath('worker/workflow-interceptors.ts');
  const tracingModule = sourcePath('worker/workflow-tracing-interceptors.ts');
  return tracing ? [tracingModule, own] : [own];
}

/**
 * jobId/tenantId from the workflow's header (or the input) on the activity's log lines and span; the
 * activity runs as its tenant (browser pages are shared fairly by tenant) and counts against the tenant's
 * share of this worker's slots. A crawl page (or a batch of them) is not run when the share is taken: it
 * answers `deferred` at once, freeing its slot, and its workflow runs it again later. Any other activity is
 * counted but never refused.
 */
const jobActivityInterceptors =
  (share: TenantShare | undefined) =>
  (ctx: Context): ActivityInterceptors => {
    const job: JobContext = { jobId: jobIdOf(ctx.info.workflowExecution?.workflowId) };
    return {
      inbound: {
        execute(input, next) {
          const header = input.headers[JOB_HEADER];
          Object.assign(
            job,
            jobContextOf(header ? defaultPayloadConverter.fromPayload(header) : undefined),
            jobContextOf(input.args[0]),
          );
          trace.getActiveSpan()?.setAttributes({ 'job.id': job.jobId, 'tenant.id': job.tenantId });
          const tenant = job.tenantId;
          if (!share || !tenant) return next(input);
          const activity = ctx.info.activityType;
          if (activity === CRAWL_PAGES) return runBatchAsTenant(share, tenant, input, next);
          const release = activity === CRAWL_PAGE ? share.tryEnter(tenant) : share.enter(tenant);
          if (!release) return Promise.resolve(DEFERRED);
          return runAsTenant(tenant, () => next(input)).finally(release);
        },
      },
      outbound: { getLogAttributes: (attributes, next) => next({ ...attributes, ...job }) },
    };
  };

const DEFERRED: DeferredActivity = { outcome: 'deferred', retryAfterMs: DEFER_AFTER_MS };

/** The activities a tenant's full share defers: a crawl page, and a batch of them. */
const CRAWL_PAGE: keyof Activities = 'crawlPage';
const CRAWL_PAGES: keyof Activities = 'crawlPages';

/**
 * A batch of crawl pages (activities/crawl/crawl-pages.ts) takes a slot of its tenant's share per page it runs
 * at a time: a batch that runs its pages `running` at a time runs all of them, as many at a time as it found
 * slots; one that runs them all at once runs those that found one, the others answer `deferred` in their place
 * of the result. With no slot free the whole batch is deferred. Its slots are released when the batch ends.
 */
function runBatchAsTenant(
  share: TenantShare,
  tenant: string,
  input: ActivityExecuteInput,
  next: Next<ActivityInboundCallsInterceptor, 'execute'>,
): Promise<unknown> {
  const arg = input.args[0] as { pages: unknown[]; running?: number };
  const { count, release } = share.tryEnterSome(tenant, Math.min(arg.pages.length, arg.running ?? Infinity));
  if (count === 0) return Promise.resolve(DEFERRED);
  const admitted =
    arg.running === undefined ? { ...arg, pages: arg.pages.slice(0, count) } : { ...arg, running: count };
  return runAsTenant(tenant, async () => {
    const results = (await next({ ...input, args: [admitted, ...input.args.slice(1)] })) as unknown[];
    return [...results, ...arg.pages.slice(results.length).map(() => DEFERRED)];
  }).finally(release);
}

/** How often a running activity tells Temporal its worker is alive (the SDK throttles to 0.8 × its timeout). */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Every activity whose policy sets a heartbeat timeout heartbeats while it runs, whatever it is doing (a
 * fetch, a model call, waiting for its tenant's share): when its worker dies, Temporal runs it elsewhere
 * after the heartbeat timeout (seconds) rather than its start-to-close timeout (minutes).
 */
const heartbeatInterceptor = (ctx: Context): ActivityInterceptors => ({
  inbound: {
    execute(input, next) {
      if (!ctx.info.heartbeatTimeoutMs) return next(input);
      const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
      return next(input).finally(() => clearInterval(beat));
    },
  },
});

export function workerInterceptors(
  tracing: Tracing | null | undefined,
  share?: TenantShare,
  metrics?: ServiceMetrics,
): WorkerInterceptors {
  const jobInterceptors = jobActivityInterceptors(share);
  // Innermost: an activity deferred by its tenant's share is neither timed nor counted as running.
  const measured = metrics ? [metricsActivityInterceptor(metrics)] : [];
  return {
    workflowModules: workflowInterceptorModules(tracing),
    activity: tracing
      ? [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
          heartbeatInterceptor,
          jobInterceptors,
          ...measured,
        ]
      : [heartbeatInterceptor, jobInterceptors, ...measured],
  };
}

export function workerSinks(tracing: Tracing | null | undefined): InjectedSinks<Sinks> | undefined {
  return tracing ? { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) } : undefined;
}

/** Each activity's duration by type and outcome, the activities running now, and what its result tells. */
const metricsActivityInterceptor =
  (metrics: ServiceMetrics) =>
  (ctx: Context): ActivityInterceptors => ({
    inbound: {
      async execute(input, next) {
        const activity = ctx.info.activityType;
        const end = metrics.activityDuration.startTimer({ activity });
        metrics.activitiesRunning.inc({ activity });
        let outcome: ActivityOutcome = 'error';
        let result: unknown;
        try {
          result = await next(input);
          outcome = 'ok';
          return result;
        } catch (err) {
          if (ctx.cancellationSignal.aborted || err instanceof CancelledFailure) outcome = 'cancelled';
          throw err;
        } finally {
          end({ outcome });
          metrics.activitiesRunning.dec({ activity });
          countActivityResult(metrics, activity, input.args[0], outcome, result);
        }
      },
    },
  });
